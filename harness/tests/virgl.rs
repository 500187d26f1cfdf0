//! The `virgl` backend end to end: conform's own vtest server per worker, killed in the middle
//! of a case. The case running through it is a crash that says the server died, the next
//! cases run on a fresh worker and server, and nothing is left behind: no server process, no
//! socket, no private directory. Skipped, with a message, on a machine without
//! virglrenderer's vtest server (`bash .ci/deps` installs it).

mod common;
use common::{conform, text};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether `conform drivers` finds virgl.
fn have_virgl() -> bool {
    let o = conform(&["drivers"]);
    let t = text(&o);
    let line = t.lines().find(|l| l.starts_with("virgl: "));
    let ok = line.is_some_and(|l| !l.contains("absent"));
    if !ok {
        eprintln!(
            "skipping: no virgl on this machine ({})",
            line.unwrap_or("no virgl line")
        );
    }
    ok
}

/// The parent pid of `pid`, from `/proc/PID/stat` (the field after the command's `)`).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// The processes whose command line starts with `name` and whose parent's parent is
/// `grandparent` (conform -> worker -> server).
fn servers_under(grandparent: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let program = cmdline.split(|b| *b == 0).next().unwrap_or(&[]);
        if !String::from_utf8_lossy(program).ends_with("virgl_test_server") {
            continue;
        }
        let worker = parent_of(pid);
        if worker.and_then(parent_of) == Some(grandparent) {
            out.push(pid);
        }
    }
    out
}

fn case(root: &Path, name: &str, yaml: &str) {
    std::fs::write(root.join(format!("{name}.yaml")), yaml).unwrap();
}

/// A program that writes one word: `value` at index 0.
fn quick(value: u32) -> String {
    format!(
        "spec: [ARBCS-GLSL-GLOBAL-INVOCATION-ID]\nrequires: {{gl: \"4.3\"}}\nprogram:\n  language: glsl\n  source: |\n    #version 430\n    layout(local_size_x = 1) in;\n    layout(std430, binding = 0) buffer B {{ uint v[]; }};\n    void main() {{ v[gl_GlobalInvocationID.x] = {value}u; }}\nbuffers:\n  - {{name: b, binding: 0, type: u32, data: [0]}}\nsteps:\n  - dispatch: [1]\nexpect:\n  - {{buffer: b, values: [{value}]}}\n"
    )
}

/// A dispatch that keeps the server busy for many seconds: 2560 groups of 64 invocations,
/// each a loop of 60000 loads at addresses the last load gave (no compiler folds that; the
/// count comes from the buffer and stays below the 65535-iteration cap of 22.3.6's loops).
/// Its result is not checked: the test kills the server while it runs.
const SLOW: &str = "spec: [ARBCS-GLSL-GLOBAL-INVOCATION-ID]\nrequires: {gl: \"4.3\"}\ntimeout_ms: 300000\nprogram:\n  language: glsl\n  source: |\n    #version 430\n    layout(local_size_x = 64) in;\n    layout(std430, binding = 0) buffer B { uint n; uint acc[]; };\n    layout(std430, binding = 1) buffer T { uint t[1024]; };\n    void main() {\n        uint a = gl_GlobalInvocationID.x;\n        for (uint i = 0u; i < n; i++)\n            a = t[(a + i) & 1023u] ^ i;\n        acc[gl_GlobalInvocationID.x] = a;\n    }\nbuffers:\n  - {name: b, binding: 0, type: u32, data: {fill: 60000, count: 163841}}\n  - {name: t, binding: 1, type: u32, data: {fill: 5, count: 1024}}\nsteps:\n  - dispatch: [2560]\nexpect:\n  - {buffer: b, count: 163841, undefined: true}\n";

#[test]
fn a_killed_vtest_server_costs_the_case_running_through_it_and_leaves_nothing() {
    if !have_virgl() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("cases");
    std::fs::create_dir_all(&root).unwrap();
    let catalogue = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/clauses.yaml");
    std::fs::copy(catalogue, root.join("clauses.yaml")).unwrap();
    case(&root, "a-slow", SLOW);
    case(&root, "b-after", &quick(7));
    case(&root, "c-after", &quick(9));
    // The workers' private directories go under this test's own temporary directory.
    let worker_tmp = tmp.path().join("tmp");
    std::fs::create_dir_all(&worker_tmp).unwrap();
    let out = tmp.path().join("out");
    let mut run = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args([
            "run",
            root.to_str().unwrap(),
            "--backend",
            "virgl",
            "--jobs",
            "1",
        ])
        .args([
            "--retry",
            "0",
            "--color",
            "never",
            "--out",
            out.to_str().unwrap(),
        ])
        .env("TMPDIR", &worker_tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let conform_pid = run.id();
    // The worker probes, then runs a-slow: kill its server once it has been up a while.
    let started = Instant::now();
    let server = loop {
        if let Some(&pid) = servers_under(conform_pid).first() {
            break pid;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no vtest server under conform (pid {conform_pid}) within 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    // The probe's worker may come and go first: the server to kill is the one serving the
    // case's worker, 3 s into the run.
    std::thread::sleep(Duration::from_secs(3));
    let serving = servers_under(conform_pid);
    assert!(!serving.is_empty(), "no vtest server under conform 3 s in");
    for &pid in &serving {
        // SAFETY: a plain kill of a process this test found by its ancestry.
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGKILL);
        }
    }
    // Every server the run starts (the killed one, the fresh one after it), to check at the
    // end that none outlived it.
    let mut seen = vec![server];
    seen.extend(serving.iter().filter(|p| **p != server));
    while run.try_wait().unwrap().is_none() {
        for pid in servers_under(conform_pid) {
            if !seen.contains(&pid) {
                seen.push(pid);
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the run did not end within 300 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = run.wait_with_output().unwrap();
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let journal = std::fs::read_to_string(out.join("results.jsonl")).expect("journal");
    let results: Vec<serde_json::Value> = journal
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |name: &str| {
        results
            .iter()
            .find(|r| r["case"] == name && r["backend"] == "virgl")
            .unwrap_or_else(|| panic!("no virgl result for {name}: {printed}"))
    };
    let slow = of("a-slow");
    assert_eq!(slow["status"], "crash", "{slow}\n{printed}");
    let said = format!("{} {}", slow["message"], slow["log"]);
    assert!(
        said.contains("vtest server") && said.contains("exited"),
        "the crash names the server: {slow}"
    );
    for name in ["b-after", "c-after"] {
        assert_eq!(of(name)["status"], "pass", "{}\n{printed}", of(name));
    }
    // Nothing left: none of the servers seen, no private directory (the socket was inside the
    // worker's own /tmp, gone with it).
    std::thread::sleep(Duration::from_millis(200));
    assert!(seen.len() >= 2, "a fresh server after the kill: {seen:?}");
    for pid in seen {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&cmdline).contains("virgl_test_server"),
            "vtest server {pid} outlived the run"
        );
        // Nor what it forked: no running process is left in its process group (a zombie
        // waiting for this machine's init to reap it has ended).
        let running: Vec<u32> = std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
            .filter(|p| {
                let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
                let rest = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
                let fields: Vec<&str> = rest.split_whitespace().collect();
                fields.len() > 3 && fields[0] != "Z" && fields[3] == pid.to_string()
            })
            .collect();
        assert!(
            running.is_empty(),
            "processes of vtest server {pid}'s group outlived the run: {running:?}"
        );
    }
    let left: Vec<_> = std::fs::read_dir(&worker_tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
}
