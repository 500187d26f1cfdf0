//! What the worker was doing in GL when it crashed.
//!
//! A driver crash kills the worker with a signal, and the parent's report had only the signal
//! and the tail of stderr. So the plan runner leaves a breadcrumb before each GL phase (the
//! build, buffer setup, each step, the readback), naming the GL call it is about to make, and
//! the worker installs a handler for the crash signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
//! SIGABRT) that writes `conform worker: crashed in <breadcrumb>` to stderr, then dies of the
//! same signal as before (the handler is reset to the default and the signal raised again),
//! so the parent still sees the signal. The handler only reads a fixed buffer and calls
//! `write`, both async-signal-safe.

use conform_plan::Step;
use std::sync::atomic::{AtomicUsize, Ordering};

const CAPACITY: usize = 240;
/// The breadcrumb's bytes; `LEN` of them are valid. Written by the thread running plans.
static mut TEXT: [u8; CAPACITY] = [0; CAPACITY];
static LEN: AtomicUsize = AtomicUsize::new(0);

/// Records what is about to happen (cut to the buffer's size).
pub fn set(what: &str) {
    let bytes = what.as_bytes();
    let n = bytes.len().min(CAPACITY);
    LEN.store(0, Ordering::SeqCst);
    // SAFETY: only the thread that runs plans writes TEXT, and the signal handler reads at
    // most LEN bytes, which is 0 while the copy is under way.
    unsafe {
        let dst = std::ptr::addr_of_mut!(TEXT).cast::<u8>();
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, n);
    }
    LEN.store(n, Ordering::SeqCst);
}

/// The current breadcrumb (for tests and for the in-process `conform debug`).
pub fn get() -> String {
    let n = LEN.load(Ordering::SeqCst);
    // SAFETY: the first `n` bytes were written by `set` before `LEN` was stored.
    let bytes = unsafe { std::slice::from_raw_parts(std::ptr::addr_of!(TEXT).cast::<u8>(), n) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// The GL call a step makes.
pub fn step_call(step: &Step) -> String {
    match step {
        Step::Dispatch { groups } => format!(
            "glDispatchCompute({}, {}, {})",
            groups[0], groups[1], groups[2]
        ),
        Step::DispatchIndirect { offset, .. } => format!("glDispatchComputeIndirect({offset})"),
        Step::MemoryBarrier { .. } => "glMemoryBarrier".into(),
        Step::Query { pname, .. } => format!("glGetIntegerv({pname})"),
        Step::ProgramQuery { pname } => format!("glGetProgramiv({pname})"),
        Step::Api(a) => format!("api action {}", a.call().name()),
        Step::DispatchGroupSize { groups, size } => format!(
            "glDispatchComputeGroupSizeARB({}, {}, {}, {}, {}, {})",
            groups[0], groups[1], groups[2], size[0], size[1], size[2]
        ),
        Step::Uniform(u) => format!("glProgramUniform* ({})", u.ty),
        Step::WriteBuffer { offset, bytes, .. } => {
            format!("glBufferSubData(offset {offset}, {} bytes)", bytes.len())
        }
        Step::ClearBuffer { .. } => "glClearBufferData".into(),
        Step::Snapshot => "reading the buffers back (snapshot)".into(),
    }
}

extern "C" fn on_crash(sig: libc::c_int) {
    const HEAD: &[u8] = b"\nconform worker: crashed in ";
    let n = LEN.load(Ordering::SeqCst);
    // SAFETY: write(2), signal(2) and raise(3) are async-signal-safe; TEXT holds `n` valid
    // bytes.
    unsafe {
        if n > 0 {
            libc::write(2, HEAD.as_ptr().cast(), HEAD.len());
            libc::write(2, std::ptr::addr_of!(TEXT).cast(), n);
            libc::write(2, b"\n".as_ptr().cast(), 1);
        }
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// Installs the crash handler (worker processes only: it would hide nothing, but the harness
/// has its own panic handling).
pub fn install() {
    for sig in [
        libc::SIGSEGV,
        libc::SIGBUS,
        libc::SIGILL,
        libc::SIGFPE,
        libc::SIGABRT,
    ] {
        // SAFETY: installing a handler that only does async-signal-safe work.
        unsafe {
            libc::signal(sig, on_crash as *const () as libc::sighandler_t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breadcrumbs_name_the_gl_call_and_are_bounded() {
        set(&format!(
            "step 2: {}",
            step_call(&Step::Dispatch { groups: [4, 1, 1] })
        ));
        assert_eq!(get(), "step 2: glDispatchCompute(4, 1, 1)");
        set(&"x".repeat(1000));
        assert_eq!(get().len(), CAPACITY);
    }
}
