//! A stand-in for `conform worker --driver NAME`, for this crate's tests (the real command is
//! wired into the `conform` CLI by the harness).

use conform_glrunner::{worker_main, Driver};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args == ["worker", "--list-devices"] {
        std::process::exit(conform_glrunner::devices_main());
    }
    let driver = match args.as_slice() {
        [w, flag, name] if w == "worker" && flag == "--driver" => name.parse::<Driver>(),
        _ => Err("usage: conform-glrunner-test-worker worker --driver NAME".to_string()),
    };
    match driver {
        Ok(d) => std::process::exit(worker_main(d)),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
