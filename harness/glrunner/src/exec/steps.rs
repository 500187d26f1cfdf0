//! Executing one step of a plan: dispatches (direct, indirect, with a group size), memory
//! barriers, queries, buffer writes and clears, snapshots; `api` and `uniform` steps go to
//! `crate::api` and `crate::uniforms`.

use super::buffers::buffer_sub_data;
use super::{unsupported, Program, Runner};
use crate::caps::get_values;
use crate::enums::{self, ProgramRead};
use crate::gl_query::*;
use conform_gl as gl;
use conform_gl::types::GLuint;
use conform_plan::{BarrierBit, GlError, Refusal, StepOutcome};

impl Runner<'_> {
    pub(crate) fn buffer_name(&self, index: usize) -> Result<GLuint, Refusal> {
        match self.buffers.get(index) {
            Some(Some(id)) => Ok(*id),
            Some(None) => Err(Refusal::Internal(format!(
                "buffer {index} is a program parameter, not a GL buffer"
            ))),
            None => Err(Refusal::Internal(format!(
                "step names buffer {index}, the plan has {}",
                self.buffers.len()
            ))),
        }
    }

    pub(super) fn step(&mut self, step: &conform_plan::Step) -> Result<StepOutcome, Refusal> {
        use conform_plan::Step;
        let gl = self.gl;
        let mut values = Vec::new();
        match step {
            Step::Dispatch { groups } => {
                if !self.caps.compute() {
                    return Err(unsupported("GL_ARB_compute_shader"));
                }
                // SAFETY: compute is offered; any arguments are legal to pass.
                unsafe { gl.DispatchCompute(groups[0], groups[1], groups[2]) };
            }
            Step::DispatchIndirect { buffer, offset } => {
                if !self.caps.compute() {
                    return Err(unsupported("GL_ARB_compute_shader"));
                }
                let id = match buffer {
                    Some(i) => self.buffer_name(*i)?,
                    None => 0,
                };
                let offset = isize::try_from(*offset).map_err(|_| {
                    Refusal::Internal(format!("indirect offset {offset} does not fit"))
                })?;
                // SAFETY: GL checks the offset against the bound buffer.
                unsafe {
                    gl.BindBuffer(gl::DISPATCH_INDIRECT_BUFFER, id);
                    gl.DispatchComputeIndirect(offset);
                }
            }
            Step::MemoryBarrier { bits } => {
                if !self.caps.memory_barrier() {
                    return Err(unsupported(
                        "GL_ARB_shader_image_load_store (glMemoryBarrier)",
                    ));
                }
                let mask = bits.iter().fold(0u32, |m, b| m | barrier_bit(*b));
                // SAFETY: gated above.
                unsafe { gl.MemoryBarrier(mask) };
            }
            Step::Query { pname, index } => {
                let (e, count) = enums::query_pname(*pname);
                values = get_values(self.caps, gl, e, *index, count);
            }
            Step::ProgramQuery { pname } => match (self.program, enums::program_pname(*pname)) {
                (Program::Object(p), ProgramRead::Object(e, count)) => {
                    let mut v = vec![0i32; count + 16];
                    // SAFETY: room for more values than the pname has.
                    unsafe { gl.GetProgramiv(p, e, v.as_mut_ptr()) };
                    values = v.into_iter().take(count).map(i64::from).collect();
                }
                (Program::Nv(_), ProgramRead::Assembly(e, count)) => {
                    let mut v = vec![0i32; count + 16];
                    // SAFETY: as above.
                    unsafe { gl.GetProgramivARB(gl::COMPUTE_PROGRAM_NV, e, v.as_mut_ptr()) };
                    values = v.into_iter().take(count).map(i64::from).collect();
                }
                (Program::Object(_), ProgramRead::Assembly(..)) => {
                    return Err(Refusal::Internal(format!(
                        "program pname `{pname}` unknown to the GL runner"
                    )))
                }
                (Program::Nv(_), ProgramRead::Object(..)) => {
                    return Err(Refusal::Internal(format!(
                        "assembly program pname `{pname}` unknown to the GL runner"
                    )))
                }
                (Program::None, _) => {
                    return Err(Refusal::Internal("program_query without a program".into()))
                }
            },
            Step::Api(action) => return self.api(action),
            Step::DispatchGroupSize { groups, size } => self.dispatch_group_size(groups, size)?,
            Step::Uniform(set) => return self.uniform_step(set),
            Step::WriteBuffer {
                buffer,
                offset,
                bytes,
            } => {
                let id = self.buffer_name(*buffer)?;
                let offset = isize::try_from(*offset).map_err(|_| {
                    Refusal::Internal(format!("write offset {offset} does not fit"))
                })?;
                buffer_sub_data(gl, id, offset, bytes);
            }
            Step::ClearBuffer { buffer } if self.caps.es() => {
                // OpenGL ES has no glClearBufferData: the same zeros through glBufferSubData.
                let id = self.buffer_name(*buffer)?;
                let zeros = vec![0u8; self.plan.buffers[*buffer].bytes.len()];
                buffer_sub_data(gl, id, 0, &zeros);
            }
            Step::ClearBuffer { buffer } => {
                if !self.caps.clear_buffer_data() {
                    return Err(unsupported("GL 4.3 or GL_ARB_clear_buffer_object"));
                }
                let id = self.buffer_name(*buffer)?;
                // SAFETY: gated above; a null `data` fills the buffer with zeros (GL 4.6
                // section 6.2.1), whatever format describes it.
                unsafe {
                    gl.BindBuffer(gl::COPY_WRITE_BUFFER, id);
                    gl.ClearBufferData(
                        gl::COPY_WRITE_BUFFER,
                        gl::R8UI,
                        gl::RED_INTEGER,
                        gl::UNSIGNED_BYTE,
                        std::ptr::null(),
                    );
                    gl.BindBuffer(gl::COPY_WRITE_BUFFER, 0);
                }
            }
            Step::Snapshot => {
                // Reading is the harness observing, like the readback after the last step:
                // what it raises is noted by read_back, not charged to the case.
                self.observe();
                let buffers = self.read_back();
                self.snapshots.push(buffers);
                return Ok(StepOutcome {
                    error: Some(GlError::NoError),
                    values,
                    applicable: true,
                });
            }
        }
        let err = take_error(gl);
        if err != gl::NO_ERROR {
            values.clear();
        }
        Ok(StepOutcome {
            error: Some(gl_error(err)),
            values,
            applicable: true,
        })
    }
}

fn barrier_bit(b: BarrierBit) -> u32 {
    match b {
        BarrierBit::ShaderStorage => gl::SHADER_STORAGE_BARRIER_BIT,
        BarrierBit::AtomicCounter => gl::ATOMIC_COUNTER_BARRIER_BIT,
        BarrierBit::Uniform => gl::UNIFORM_BARRIER_BIT,
        BarrierBit::Command => gl::COMMAND_BARRIER_BIT,
        BarrierBit::BufferUpdate => gl::BUFFER_UPDATE_BARRIER_BIT,
        BarrierBit::ShaderImageAccess => gl::SHADER_IMAGE_ACCESS_BARRIER_BIT,
        BarrierBit::All => gl::ALL_BARRIER_BITS,
    }
}
