//! The parent's side: one supervised child process speaking one JSON line per request.

use conform_plan::{RawResult, Refusal};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How much of the child's stderr is kept.
const STDERR_KEEP: usize = 64 * 1024;
/// How much of it a crash or timeout report carries.
const STDERR_TAIL: usize = 8 * 1024;
/// The longest answer line read from a child. A reference answer holds at most 256 MiB of
/// buffers (the loader's limits), base64 makes that 342 MiB; anything longer is a broken
/// worker, and reading it whole would make the harness's memory depend on the input.
pub const MAX_RESPONSE_BYTES: usize = 384 << 20;
/// How often a wait for an answer looks at the cancel flag ([`Process::cancel_on`]).
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// Why a request got no answer.
#[derive(Debug)]
pub enum Failure {
    /// The child died (its stdout closed, or its answer was cut short).
    Crash(ExitStatus),
    /// The limit passed; the child was killed.
    Timeout,
    /// The cancel flag was raised while waiting; the child was killed.
    Cancelled,
    /// Anything else: no child, an unreadable or oversized answer.
    Protocol(String),
}

type Ring = Arc<Mutex<VecDeque<u8>>>;

struct Live {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Answer lines; `Err` for one above [`MAX_RESPONSE_BYTES`]; `None` at end of output.
    lines: Receiver<Option<Result<String, ()>>>,
    stderr_done: Receiver<()>,
}

/// A child process, started by [`Process::spawn`] and replaced by the caller after a crash
/// or a timeout (the next `spawn`).
pub struct Process {
    /// What the child runs, for messages (`the llvmpipe worker`).
    label: String,
    live: Option<Live>,
    stderr: Ring,
    starts: u32,
    events: Vec<String>,
    cancel: Option<Arc<AtomicBool>>,
}

fn tail(ring: &Ring) -> String {
    let guard = match ring.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    let skip = guard.len().saturating_sub(STDERR_TAIL);
    let bytes: Vec<u8> = guard.iter().skip(skip).copied().collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

impl Process {
    /// No child yet; `label` names it in messages.
    pub fn new(label: impl Into<String>) -> Process {
        Process {
            label: label.into(),
            live: None,
            stderr: Arc::new(Mutex::new(VecDeque::new())),
            starts: 0,
            events: Vec::new(),
            cancel: None,
        }
    }

    /// Stops waiting for an answer as soon as `flag` is raised (the child is killed and the
    /// request fails with [`Failure::Cancelled`]).
    pub fn cancel_on(&mut self, flag: Arc<AtomicBool>) {
        self.cancel = Some(flag);
    }

    /// How many children were started so far (1 + restarts).
    pub fn starts(&self) -> u32 {
        self.starts
    }

    /// Things that happened outside any request (a child that died between requests and was
    /// replaced), oldest first; drained by the call.
    pub fn take_events(&mut self) -> Vec<String> {
        std::mem::take(&mut self.events)
    }

    /// The process id of the running child, if one is running.
    pub fn pid(&self) -> Option<u32> {
        self.live.as_ref().map(|l| l.child.id())
    }

    /// Whether a child is running (as far as this side knows).
    pub fn is_live(&self) -> bool {
        self.live.is_some()
    }

    /// The last few KiB the current (or last) child wrote on stderr.
    pub fn stderr_tail(&self) -> String {
        tail(&self.stderr)
    }

    /// Starts `cmd` (its stdin, stdout and stderr become pipes) as the child.
    pub fn spawn(&mut self, mut cmd: Command) -> std::io::Result<()> {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A process group of its own, so that killing the worker kills what its driver
            // started too (helper processes, a shader compiler server): see `kill`.
            .process_group(0);
        let mut child = cmd.spawn()?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other("worker pipes missing"));
        };
        if let Ok(mut g) = self.stderr.lock() {
            g.clear();
        }
        let (line_tx, lines) = mpsc::channel();
        // Threads the system may refuse (a memory limit): the worker is not started, an
        // error the caller turns into the plan's result, never a panic.
        let refused = |mut child: Child, e: std::io::Error| {
            let _ = child.kill();
            let _ = child.wait();
            Err(std::io::Error::other(format!(
                "cannot start a thread to read the worker: {e}"
            )))
        };
        let reader = std::thread::Builder::new().spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                // One byte over the limit tells a line that is too long from one that fits.
                let limit = MAX_RESPONSE_BYTES as u64 + 1;
                match (&mut reader).take(limit).read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => {
                        let _ = line_tx.send(None);
                        return;
                    }
                    Ok(n) if n as u64 == limit && !line.ends_with(b"\n") => {
                        let _ = line_tx.send(Some(Err(())));
                        return;
                    }
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&line).into_owned();
                        if line_tx.send(Some(Ok(text))).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        if let Err(e) = reader {
            return refused(child, e);
        }
        let ring = Arc::clone(&self.stderr);
        let (done_tx, stderr_done) = mpsc::channel();
        let drain = std::thread::Builder::new().spawn(move || {
            let mut stderr = stderr;
            let mut buf = [0u8; 4096];
            loop {
                match stderr.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let mut g = match ring.lock() {
                            Ok(g) => g,
                            Err(p) => p.into_inner(),
                        };
                        g.extend(&buf[..n]);
                        let excess = g.len().saturating_sub(STDERR_KEEP);
                        g.drain(..excess);
                    }
                }
            }
            let _ = done_tx.send(());
        });
        if let Err(e) = drain {
            return refused(child, e);
        }
        self.starts += 1;
        self.live = Some(Live {
            child,
            stdin: Some(stdin),
            lines,
            stderr_done,
        });
        Ok(())
    }

    /// Kills the child (if any) and waits for it; returns its exit status.
    pub fn kill(&mut self) -> Option<ExitStatus> {
        let mut live = self.live.take()?;
        // The whole group: the worker and every process it started that stayed in it.
        // SAFETY: a plain kill of the group `spawn` made, whose leader is not reaped yet.
        unsafe {
            libc::kill(-(live.child.id() as libc::pid_t), libc::SIGKILL);
        }
        let _ = live.child.kill();
        let status = live.child.wait().ok();
        let _ = live.stderr_done.recv_timeout(Duration::from_secs(1));
        status
    }

    /// After the child's stdout closed: its exit status (killing it if it lingers).
    fn reap(&mut self) -> Option<ExitStatus> {
        let live = self.live.as_mut()?;
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            match live.child.try_wait() {
                Ok(Some(status)) => {
                    let _ = live.stderr_done.recv_timeout(Duration::from_secs(1));
                    self.live = None;
                    return Some(status);
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => return self.kill(),
            }
        }
    }

    fn crashed(&mut self) -> Failure {
        match self.reap() {
            Some(status) => Failure::Crash(status),
            None => Failure::Protocol("worker vanished".into()),
        }
    }

    /// A child that died between requests (after answering) is reaped, and its death noted
    /// as an event (it belongs to no request); the caller then starts a fresh one.
    pub fn reap_if_exited(&mut self) {
        let exited = self
            .live
            .as_mut()
            .is_some_and(|l| !matches!(l.child.try_wait(), Ok(None)));
        if exited {
            let status = self
                .kill()
                .map_or_else(|| "status unknown".to_string(), |s| s.to_string());
            self.events.push(format!(
                "the {} worker exited between plans ({status}); a fresh one was started",
                self.label
            ));
        }
    }

    /// Sends `req` as one JSON line and waits at most `timeout` for the answer line.
    pub fn request<Req: Serialize, Resp: DeserializeOwned>(
        &mut self,
        req: &Req,
        timeout: Duration,
    ) -> Result<Resp, Failure> {
        let text = serde_json::to_string(req)
            .map_err(|e| Failure::Protocol(format!("cannot encode the request: {e}")))?;
        let live = self
            .live
            .as_mut()
            .ok_or_else(|| Failure::Protocol("no worker running".into()))?;
        let sent = match live.stdin.as_mut() {
            Some(stdin) => writeln!(stdin, "{text}").and_then(|_| stdin.flush()),
            None => Err(std::io::Error::other("worker stdin closed")),
        };
        if sent.is_err() {
            // The child is gone; its status tells how.
            return Err(self.crashed());
        }
        let got = wait_for_line(&live.lines, timeout, self.cancel.as_deref());
        match got {
            Ok(Some(Err(()))) => {
                self.kill();
                Err(Failure::Protocol(format!(
                    "the {} worker answered with more than {MAX_RESPONSE_BYTES} bytes",
                    self.label
                )))
            }
            Err(Waited::Cancelled) => {
                self.kill();
                Err(Failure::Cancelled)
            }
            Ok(Some(Ok(line))) => match serde_json::from_str::<Resp>(&line) {
                Ok(r) => Ok(r),
                // A line cut short by a dying child is a crash, not a protocol error.
                Err(_) if !line.ends_with('\n') => Err(self.crashed()),
                Err(e) => {
                    self.kill();
                    Err(Failure::Protocol(format!(
                        "unreadable worker response ({e}): {}",
                        line.chars().take(200).collect::<String>()
                    )))
                }
            },
            Ok(None) | Err(Waited::Disconnected) => Err(self.crashed()),
            Err(Waited::Timeout) => {
                self.kill();
                Err(Failure::Timeout)
            }
        }
    }

    /// A failed request as the plan's result: a crash with its signal or exit code and the
    /// tail of stderr, a timeout, or an internal refusal.
    pub fn failure_result(&self, f: Failure) -> RawResult {
        let stderr_tail = self.stderr_tail();
        match f {
            Failure::Crash(status) => RawResult::Crash {
                signal: status.signal(),
                code: status.code(),
                stderr_tail,
            },
            Failure::Timeout => RawResult::Timeout { stderr_tail },
            Failure::Cancelled => RawResult::Done(Err(Refusal::Internal("cancelled".into()))),
            Failure::Protocol(msg) => RawResult::Done(Err(Refusal::Internal(msg))),
        }
    }

    /// The driver's own last stderr lines (not the worker's `conform worker` lines), up to
    /// three, for a reason a driver gave no context or device: the driver's message says most.
    pub fn driver_said(&self, reason: String) -> String {
        // Give the stderr thread a moment.
        std::thread::sleep(Duration::from_millis(50));
        let said = self.stderr_tail();
        let driver_lines: Vec<&str> = said
            .lines()
            .filter(|l| !l.starts_with("conform worker") && !l.trim().is_empty())
            .collect();
        if driver_lines.is_empty() {
            reason
        } else {
            let from = driver_lines.len().saturating_sub(3);
            format!(
                "{reason} (driver said: {})",
                driver_lines[from..].join(" | ")
            )
        }
    }

    /// Stops the child: closes its stdin (a worker exits at end of input), gives it a moment
    /// to exit, then kills it.
    pub fn shutdown(&mut self) {
        if let Some(live) = self.live.as_mut() {
            drop(live.stdin.take());
            let deadline = Instant::now() + Duration::from_millis(500);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = live.child.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        self.kill();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Why [`wait_for_line`] returned without a line.
enum Waited {
    Timeout,
    Disconnected,
    Cancelled,
}

/// The next line from a child's reader thread, waiting at most `timeout` and looking at
/// `cancel` every [`CANCEL_POLL`].
fn wait_for_line<T>(
    lines: &Receiver<T>,
    timeout: Duration,
    cancel: Option<&AtomicBool>,
) -> Result<T, Waited> {
    let deadline = Instant::now() + timeout;
    loop {
        if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(Waited::Cancelled);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let slice = if cancel.is_some() {
            left.min(CANCEL_POLL)
        } else {
            left
        };
        match lines.recv_timeout(slice) {
            Ok(t) => return Ok(t),
            Err(RecvTimeoutError::Disconnected) => return Err(Waited::Disconnected),
            Err(RecvTimeoutError::Timeout) if left <= slice => return Err(Waited::Timeout),
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A killed worker takes what it started with it (its process group), not only itself.
    #[test]
    fn killing_a_worker_kills_the_processes_it_started() {
        let mut p = Process::new("test");
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 300 & echo started $! >&2; exec sleep 300"]);
        p.spawn(cmd).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let pid: u32 = loop {
            let tail = p.stderr_tail();
            if let Some(pid) = tail
                .split_whitespace()
                .skip_while(|w| *w != "started")
                .nth(1)
                .and_then(|w| w.parse().ok())
            {
                break pid;
            }
            assert!(Instant::now() < deadline, "no pid from the child: {tail:?}");
            std::thread::sleep(Duration::from_millis(20));
        };
        p.kill();
        // Gone, or a zombie waiting for init (no longer running).
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let state = stat
                .rfind(')')
                .and_then(|i| stat[i + 1..].split_whitespace().next())
                .unwrap_or("");
            if stat.is_empty() || state == "Z" {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the worker's child {pid} outlived it"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
