//! What the worker was doing in GL when it crashed: the breadcrumb itself and its signal
//! handler are `conform_worker::breadcrumb` (shared with the Vulkan runner); this module names
//! the GL call each step makes.

use conform_plan::Step;
pub use conform_worker::breadcrumb::{get, install, set};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_name_their_gl_call() {
        assert_eq!(
            step_call(&Step::Dispatch { groups: [4, 1, 1] }),
            "glDispatchCompute(4, 1, 1)"
        );
    }
}
