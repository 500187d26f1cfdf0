//! What the worker was doing in its driver when it crashed.
//!
//! A driver crash kills the worker with a signal, and the parent's report had only the signal
//! and the tail of stderr. So the plan runner leaves a breadcrumb before each phase (the
//! build, buffer setup, each step, the readback), naming the driver call it is about to make, and
//! the worker installs a handler for the crash signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
//! SIGABRT) that writes `conform worker: crashed in <breadcrumb>` to stderr, then dies of the
//! same signal as before (the handler is reset to the default and the signal raised again),
//! so the parent still sees the signal. The handler only reads a fixed buffer and calls
//! `write`, both async-signal-safe.

use std::sync::atomic::{AtomicUsize, Ordering};

const CAPACITY: usize = 240;
/// Two buffers: `set` writes the one the handler is not told about, then publishes it, so a
/// crash in another thread (a driver's compiler thread) while the next breadcrumb is being
/// written still prints one whole breadcrumb, never the new one's head over the old one's
/// tail (seen on zink: "reading the buffers back (glGetBufferSubData)Program or
/// glProgramStringARB)").
static mut TEXT: [[u8; CAPACITY]; 2] = [[0; CAPACITY]; 2];
/// The published breadcrumb: its buffer in the top bit, its length below; 0 for none.
static CURRENT: AtomicUsize = AtomicUsize::new(0);
const WHICH: usize = 1 << (usize::BITS - 1);

/// Records what is about to happen (cut to the buffer's size).
pub fn set(what: &str) {
    let bytes = what.as_bytes();
    let n = bytes.len().min(CAPACITY);
    // The buffer not published now; only the thread that runs plans calls `set`.
    let next = if CURRENT.load(Ordering::SeqCst) & WHICH == 0 {
        1
    } else {
        0
    };
    // SAFETY: only the thread that runs plans writes TEXT, and only the buffer the handler is
    // not pointed at; the handler reads the published buffer and length.
    unsafe {
        let dst = std::ptr::addr_of_mut!(TEXT[next]).cast::<u8>();
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, n);
    }
    CURRENT.store(if next == 1 { WHICH | n } else { n }, Ordering::SeqCst);
}

/// The published breadcrumb: its buffer and its length.
fn published() -> (usize, usize) {
    let c = CURRENT.load(Ordering::SeqCst);
    (usize::from(c & WHICH != 0), (c & !WHICH).min(CAPACITY))
}

/// The current breadcrumb (for tests and for the in-process `conform debug`).
pub fn get() -> String {
    let (which, n) = published();
    // SAFETY: the first `n` bytes of the published buffer were written before it was
    // published.
    let bytes =
        unsafe { std::slice::from_raw_parts(std::ptr::addr_of!(TEXT[which]).cast::<u8>(), n) };
    String::from_utf8_lossy(bytes).into_owned()
}

extern "C" fn on_crash(sig: libc::c_int) {
    const HEAD: &[u8] = b"\nconform worker: crashed in ";
    let (which, n) = published();
    // SAFETY: write(2), signal(2) and raise(3) are async-signal-safe; the published buffer
    // holds `n` valid bytes.
    unsafe {
        if n > 0 {
            libc::write(2, HEAD.as_ptr().cast(), HEAD.len());
            libc::write(2, std::ptr::addr_of!(TEXT[which]).cast(), n);
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
        set("step 2: glDispatchCompute(4, 1, 1)");
        assert_eq!(get(), "step 2: glDispatchCompute(4, 1, 1)");
        set(&"x".repeat(1000));
        assert_eq!(get().len(), CAPACITY);
        // (One test: the breadcrumb is process-wide state.) A breadcrumb read while the next
        // one is written is the whole previous one: the next is written into the other buffer
        // and published after.
        set("building the program (glCompileShader, glLinkProgram or glProgramStringARB)");
        let (which, n) = published();
        // What `set` for the next breadcrumb writes: the other buffer.
        set("reading the buffers back (glGetBufferSubData)");
        let (next, _) = published();
        assert_ne!(which, next);
        // SAFETY: test-only read of the buffer published before, as the handler would hold it.
        let old =
            unsafe { std::slice::from_raw_parts(std::ptr::addr_of!(TEXT[which]).cast::<u8>(), n) };
        assert_eq!(
            std::str::from_utf8(old).unwrap(),
            "building the program (glCompileShader, glLinkProgram or glProgramStringARB)"
        );
        assert_eq!(get(), "reading the buffers back (glGetBufferSubData)");
    }
}
