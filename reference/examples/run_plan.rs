//! Reads one `ExecPlan` as JSON from stdin, runs it on the reference, and prints the `Outcome`
//! (or the refusal) as one JSON line. A debugging aid: `cargo run -p conform-reference
//! --example run_plan < plan.json`.

use std::io::Read;

fn main() {
    let mut text = String::new();
    if std::io::stdin().read_to_string(&mut text).is_err() {
        eprintln!("cannot read stdin");
        std::process::exit(2);
    }
    let plan: conform_plan::ExecPlan = match serde_json::from_str(&text) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("not an ExecPlan: {e}");
            std::process::exit(2);
        }
    };
    let out = conform_reference::run(&plan, &conform_reference::Options::default());
    println!(
        "{}",
        serde_json::to_string(&out).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    );
}
