//! The worker process: one driver, a context per client API, one plan at a time.

use crate::caps::{self, Caps};
use crate::context::{self, GlContext};
use crate::exec;
use crate::gl_query;
use crate::{ContextApi, Driver, Request, Response};
use conform_plan::{ExecPlan, Outcome, Refusal};
pub use conform_worker::{ignore_interrupts, protocol_output, watch_parent};
use std::io::{BufWriter, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Sets the driver's environment before EGL loads (the parent [`crate::Worker`] sets it too;
/// this covers `conform worker` started by hand). Returns a private runtime directory to
/// remove at exit, when one was made here.
fn prepare_environment(driver: Driver) -> Option<std::path::PathBuf> {
    for (key, value, overridable) in driver.environment() {
        if !overridable || std::env::var_os(key).is_none() {
            std::env::set_var(key, value);
        }
    }
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        if let Ok(dir) = conform_worker::private_runtime_dir() {
            std::env::set_var("XDG_RUNTIME_DIR", &dir);
            return Some(dir);
        }
    }
    None
}

/// virgl's vtest server for this process ([`crate::vtest`]), started before EGL loads;
/// `None` for the other drivers.
fn start_server(driver: Driver) -> Option<Result<crate::vtest::VtestServer, String>> {
    (driver == Driver::Virgl).then(crate::vtest::VtestServer::start)
}

/// Runs one plan on `driver` in this process (`conform debug`), so gdb, rr or valgrind see
/// the driver's own stack: the driver's environment is set, its context created, the plan
/// run. Must be called before anything else in the process loads EGL.
pub fn run_in_process(
    driver: Driver,
    plan: &conform_plan::ExecPlan,
) -> Result<(crate::DriverInfo, Result<conform_plan::Outcome, Refusal>), String> {
    let runtime_dir = prepare_environment(driver);
    let server = start_server(driver).transpose()?;
    let api = ContextApi::Gl;
    let result = context::open_display(driver)
        .and_then(|(display, device)| context::create(&display, &device, driver, api))
        .map(|c| {
            let caps = Caps {
                info: caps::probe(&c.gl, driver, api),
            };
            gl_query::enable_debug_messages(&c.gl, caps.debug_output());
            let outcome = exec::run_plan(&c.gl, &caps, plan);
            (caps.info, outcome)
        });
    drop(server);
    if let Some(dir) = runtime_dir {
        let _ = std::fs::remove_dir_all(dir);
    }
    result
}

/// `conform worker --list-devices`: prints every EGL device as one JSON line
/// (`Result<Vec<EglDevice>, String>`) on the protocol output and exits.
pub fn devices_main() -> i32 {
    watch_parent();
    ignore_interrupts();
    let mut out = protocol_output();
    let devices = context::list_devices();
    // An empty line, should serialization ever fail, reads as "listing failed" in the parent.
    let line = serde_json::to_string(&devices).unwrap_or_default();
    match writeln!(out, "{line}").and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

/// Runs `plan` in `api`'s context; a panic in the runner is an internal refusal, a missing
/// context an unsupported one.
fn run(
    contexts: &mut Contexts,
    driver: Driver,
    api: ContextApi,
    plan: &ExecPlan,
) -> Result<Outcome, Refusal> {
    match contexts.switch_to(api) {
        Ok(r) => match catch_unwind(AssertUnwindSafe(|| {
            exec::run_plan(&r.ctx.gl, &r.caps, plan)
        })) {
            Ok(r) => r,
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Err(Refusal::Internal(format!("GL runner panicked: {msg}")))
            }
        },
        Err(e) => {
            // The test triggers work without a context, so the harness can prove its crash
            // and hang handling on machines without any driver.
            #[cfg(feature = "test-triggers")]
            test_triggers(plan);
            Err(Refusal::Unsupported(match api {
                ContextApi::Gl => format!("driver {driver} is unavailable: {e}"),
                ContextApi::Gles => format!("driver {driver} has no OpenGL ES context: {e}"),
            }))
        }
    }
}

/// Runs the `conform_test_abort` / `conform_test_hang` steps of a plan that cannot otherwise
/// run (no context). They never return.
#[cfg(feature = "test-triggers")]
fn test_triggers(plan: &conform_plan::ExecPlan) {
    for step in &plan.steps {
        if let conform_plan::Step::Api(action) = step {
            crate::api::test_trigger(action);
        }
    }
}

/// A context with what its probe found.
struct Ready {
    ctx: GlContext,
    caps: Caps,
}

/// A worker's contexts: one per client API, both on the driver's one EGL display, made once
/// and reused for every plan (a context per plan would cost more than most plans). Exactly
/// one is current at a time ([`Contexts::switch_to`]).
struct Contexts {
    gl: Result<Ready, String>,
    gles: Result<Ready, String>,
    current: ContextApi,
}

impl Contexts {
    /// Makes the desktop context and the ES one (which may fail alone: the desktop one's
    /// probe then says why in [`crate::DriverInfo::gles`]), leaving the desktop one current.
    fn open(driver: Driver) -> Contexts {
        let (display, device) = match context::open_display(driver) {
            Ok(d) => d,
            Err(e) => {
                return Contexts {
                    gl: Err(e.clone()),
                    gles: Err(e),
                    current: ContextApi::Gl,
                }
            }
        };
        let ready = |api: ContextApi| -> Result<Ready, String> {
            let ctx = context::create(&display, &device, driver, api)?;
            let mut caps = Caps {
                info: caps::probe(&ctx.gl, driver, api),
            };
            caps.info.egl_device = ctx.device_description.clone();
            caps.info.libraries = crate::loaded::driver_libraries();
            let debug = gl_query::enable_debug_messages(&ctx.gl, caps.debug_output());
            let info = &caps.info;
            eprintln!(
                "conform worker ({driver}): {} | {} | {} | debug messages {} ({})",
                info.renderer,
                info.version,
                info.profile,
                if debug { "on" } else { "off" },
                ctx.device_description
            );
            Ok(Ready { ctx, caps })
        };
        let gl = ready(ContextApi::Gl);
        let gles = match &gl {
            Ok(r) => r.ctx.release().and_then(|_| ready(ContextApi::Gles)),
            Err(e) => Err(e.clone()),
        };
        if let Ok(es) = &gles {
            if let Err(e) = es.ctx.release() {
                eprintln!("conform worker ({driver}): {e}");
            }
        }
        let mut gl = gl.and_then(|r| r.ctx.make_current().map(|_| r));
        if let Ok(r) = &mut gl {
            r.caps.info.gles = match &gles {
                Ok(es) => Ok(Box::new(es.caps.info.clone())),
                Err(e) => Err(e.clone()),
            };
        }
        if let Err(e) = &gles {
            eprintln!("conform worker ({driver}): no OpenGL ES context: {e}");
        }
        Contexts {
            gl,
            gles,
            current: ContextApi::Gl,
        }
    }

    fn get(&self, api: ContextApi) -> &Result<Ready, String> {
        match api {
            ContextApi::Gl => &self.gl,
            ContextApi::Gles => &self.gles,
        }
    }

    /// Makes `api`'s context current (releasing the other first: EGL keeps one current
    /// context per client API, and Mesa sends GL calls to the one made current last).
    fn switch_to(&mut self, api: ContextApi) -> Result<&Ready, String> {
        if self.current != api {
            if let Ok(old) = self.get(self.current) {
                old.ctx.release()?;
            }
            let new = self.get(api).as_ref().map_err(|e| e.clone())?;
            new.ctx.make_current()?;
            self.current = api;
        }
        self.get(api).as_ref().map_err(|e| e.clone())
    }
}

/// Entry point of `conform worker --driver NAME`: creates the contexts for `driver` and
/// answers [`Request`]s from stdin (one JSON line each) with [`Response`]s until stdin closes.
/// Returns the process exit code.
pub fn worker_main(driver: Driver) -> i32 {
    // virgl's server first, while the process has one thread (its private /tmp needs it).
    let runtime_dir = prepare_environment(driver);
    let server = start_server(driver);
    watch_parent();
    ignore_interrupts();
    crate::breadcrumb::install();
    let mut out = BufWriter::new(protocol_output());
    let mut contexts = match &server {
        Some(Err(e)) => Contexts {
            gl: Err(e.clone()),
            gles: Err(e.clone()),
            current: ContextApi::Gl,
        },
        _ => Contexts::open(driver),
    };
    // virgl: what the host side runs, beside the guest's libraries.
    if let (Some(Ok(s)), Ok(r)) = (&server, &mut contexts.gl) {
        r.caps.info.libraries.extend(s.libraries());
    }
    if let Err(e) = &contexts.gl {
        eprintln!("conform worker ({driver}): no context: {e}");
    }
    let code = conform_worker::serve(
        &driver.to_string(),
        &mut out,
        |request| match request {
            Request::Probe => Response::Probe(match &contexts.gl {
                Ok(r) => Ok(r.caps.info.clone()),
                Err(e) => Err(e.clone()),
            }),
            Request::Run(plan) => Response::Run(run(&mut contexts, driver, ContextApi::Gl, &plan)),
            Request::RunGles(plan) => {
                Response::Run(run(&mut contexts, driver, ContextApi::Gles, &plan))
            }
        },
        |m| Response::Run(Err(Refusal::Internal(m))),
    );
    drop(contexts);
    drop(server);
    if let Some(dir) = runtime_dir {
        let _ = std::fs::remove_dir_all(dir);
    }
    code
}
