//! Built-in variables: the compute inputs (`gl_LocalInvocationID` & co.), `gl_WorkGroupSize`,
//! `gl_LocalGroupSizeARB` (GL_ARB_compute_variable_group_size),
//! the `gl_MaxCompute*` constants, the GL_NV_shader_thread_group variables and the subgroup
//! variables of GL_KHR_shader_subgroup and GL_ARB_shader_ballot.

use crate::front::glsl::facts::VARIABLE_GROUP_SIZE;
use crate::front::glsl::lower::{Lower, R, V};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::{BinOp, Builtin, Dst, Inst, MaskKind, ScalarTy, Src, Ty as ITy};
use crate::LIMITS;

/// The mask a `gl_Subgroup??Mask` name (after its prefix) names.
fn mask_kind(rest: &str) -> MaskKind {
    match &rest[..2] {
        "Eq" => MaskKind::Eq,
        "Ge" => MaskKind::Ge,
        "Gt" => MaskKind::Gt,
        "Le" => MaskKind::Le,
        _ => MaskKind::Lt,
    }
}

impl<'a> Lower<'a> {
    /// A compile error unless the subgroup extension `ext` is enabled.
    fn subgroup_gate(&self, name: &str, ext: &str) -> R<()> {
        if self.subgroup_ext(ext) {
            Ok(())
        } else {
            self.err(format!(
                "'{name}' : undeclared identifier (requires #extension {ext})"
            ))
        }
    }

    pub(in crate::front::glsl::lower) fn builtin_var(&mut self, name: &str) -> R<V> {
        let uvec3 = Ty::V(Sc::Uint, 3);
        let b = |s: &mut Self, which: Builtin, ty: Ty| {
            let t = s.tmp();
            s.emit(Inst::Builtin {
                dst: Dst::new(t),
                which,
            });
            V {
                src: Src::new(t),
                ty,
                k: None,
            }
        };
        let ivec3k = |s: &mut Self, v: [u32; 3]| {
            s.kv(
                Ty::V(Sc::Int, 3),
                [u64::from(v[0]), u64::from(v[1]), u64::from(v[2]), 0],
            )
        };
        let int_k = |s: &mut Self, v: u32| s.k_scalar(Sc::Int, u64::from(v));
        let nv_group = |s: &Self| -> R<()> {
            if s.has_ext("GL_NV_shader_thread_group") {
                Ok(())
            } else {
                s.err(format!(
                    "'{name}' : undeclared identifier (requires #extension GL_NV_shader_thread_group)"
                ))
            }
        };
        Ok(match name {
            "gl_LocalInvocationID" => b(self, Builtin::LocalId, uvec3),
            "gl_GlobalInvocationID" => b(self, Builtin::GlobalId, uvec3),
            "gl_WorkGroupID" => b(self, Builtin::GroupId, uvec3),
            "gl_NumWorkGroups" => b(self, Builtin::GroupCount, uvec3),
            "gl_LocalInvocationIndex" => b(self, Builtin::LocalIndex, Ty::UINT),
            "gl_WorkGroupSize" => {
                let sh = &self.shaders[self.cur];
                // ARB_compute_variable_group_size, GLSL 7.1: gl_WorkGroupSize is a
                // compile-time error in a shader declaring a variable local size.
                if sh.variable_size_at.is_some() {
                    return self.err("gl_WorkGroupSize used in a shader that declares a variable local size (layout(local_size_variable) in;): use gl_LocalGroupSizeARB");
                }
                let (Some(ls), Some(at)) = (sh.local_size, sh.local_size_at) else {
                    return self.err("gl_WorkGroupSize used in a shader that declares no local size (layout(local_size_x = ...) in;)");
                };
                // GLSL §7.1: a compile-time error "before that shader has declared a fixed
                // local group size".
                if self.off < at {
                    return self.err("gl_WorkGroupSize used before the shader declares its local size (layout(local_size_x = ...) in;)");
                }
                self.kv(
                    uvec3,
                    [u64::from(ls[0]), u64::from(ls[1]), u64::from(ls[2]), 0],
                )
            }
            // ARB_compute_variable_group_size, GLSL 7.1: the work group's size: the size the
            // dispatch gives in a shader declaring local_size_variable, gl_WorkGroupSize's
            // value in a shader with a fixed size.
            "gl_LocalGroupSizeARB" if self.has_ext(VARIABLE_GROUP_SIZE) => {
                b(self, Builtin::GroupSize, uvec3)
            }
            "gl_MaxComputeWorkGroupCount" => ivec3k(self, LIMITS.max_work_group_count),
            "gl_MaxComputeWorkGroupSize" => ivec3k(self, LIMITS.max_work_group_size),
            "gl_MaxComputeUniformComponents" => int_k(self, 512),
            "gl_MaxComputeTextureImageUnits" => int_k(self, 16),
            "gl_MaxComputeImageUniforms" => int_k(self, 8),
            "gl_MaxComputeAtomicCounters" => int_k(self, 8),
            "gl_MaxComputeAtomicCounterBuffers" => int_k(self, 8),
            "gl_WarpSizeNV" => {
                nv_group(self)?;
                self.k_u32(LIMITS.warp_size)
            }
            "gl_ThreadInWarpNV" => {
                nv_group(self)?;
                b(self, Builtin::LaneId, Ty::UINT)
            }
            "gl_WarpIDNV" => {
                nv_group(self)?;
                b(self, Builtin::WarpId, Ty::UINT)
            }
            "gl_HelperThreadNV" => {
                nv_group(self)?;
                self.k_scalar(Sc::Bool, 0)
            }
            "gl_ThreadEqMaskNV" | "gl_ThreadGeMaskNV" | "gl_ThreadGtMaskNV"
            | "gl_ThreadLeMaskNV" | "gl_ThreadLtMaskNV" => {
                nv_group(self)?;
                let lane = b(self, Builtin::LaneId, Ty::UINT);
                let u = ITy::new(ScalarTy::U32, 1);
                let one = self.konst([1, 0, 0, 0]);
                let all = self.konst([0xffff_ffff, 0, 0, 0]);
                let eq = self.b.bin_fresh(BinOp::Shl, u, Src::new(one), lane.src);
                let ge = self.b.bin_fresh(BinOp::Shl, u, Src::new(all), lane.src);
                let r = self.tmp();
                let (op, a, bb) = match name {
                    "gl_ThreadEqMaskNV" => (BinOp::Or, eq, eq),
                    "gl_ThreadGeMaskNV" => (BinOp::Or, ge, ge),
                    "gl_ThreadGtMaskNV" => (BinOp::Xor, ge, eq),
                    "gl_ThreadLtMaskNV" => (BinOp::Sub, eq, one),
                    _ => {
                        // Le = Lt | Eq
                        let lt = self.b.bin_fresh(BinOp::Sub, u, Src::new(eq), Src::new(one));
                        (BinOp::Or, lt, eq)
                    }
                };
                self.b
                    .bin(op, u, Dst::masked(r, 1), Src::new(a), Src::new(bb));
                V {
                    src: Src::new(r),
                    ty: Ty::UINT,
                    k: None,
                }
            }
            "gl_SubgroupSize" | "gl_SubgroupInvocationID" | "gl_NumSubgroups" | "gl_SubgroupID" => {
                self.subgroup_gate(name, "GL_KHR_shader_subgroup_basic")?;
                let which = match name {
                    "gl_SubgroupSize" => Builtin::SubgroupSize,
                    "gl_SubgroupInvocationID" => Builtin::SubgroupInvocationId,
                    "gl_NumSubgroups" => Builtin::NumSubgroups,
                    _ => Builtin::SubgroupId,
                };
                self.subgroup_builtin(which, Ty::UINT)
            }
            "gl_SubgroupEqMask" | "gl_SubgroupGeMask" | "gl_SubgroupGtMask"
            | "gl_SubgroupLeMask" | "gl_SubgroupLtMask" => {
                self.subgroup_gate(name, "GL_KHR_shader_subgroup_ballot")?;
                let kind = mask_kind(&name["gl_Subgroup".len()..]);
                self.subgroup_builtin(Builtin::SubgroupMask(kind), Ty::V(Sc::Uint, 4))
            }
            "gl_SubGroupSizeARB" | "gl_SubGroupInvocationARB" => {
                self.subgroup_gate(name, "GL_ARB_shader_ballot")?;
                let which = match name {
                    "gl_SubGroupSizeARB" => Builtin::SubgroupSize,
                    _ => Builtin::SubgroupInvocationId,
                };
                self.subgroup_builtin(which, Ty::UINT)
            }
            "gl_SubGroupEqMaskARB"
            | "gl_SubGroupGeMaskARB"
            | "gl_SubGroupGtMaskARB"
            | "gl_SubGroupLeMaskARB"
            | "gl_SubGroupLtMaskARB" => {
                self.subgroup_gate(name, "GL_ARB_shader_ballot")?;
                let kind = mask_kind(&name["gl_SubGroup".len()..]);
                let m = self.subgroup_builtin(Builtin::SubgroupMask(kind), Ty::V(Sc::Uint, 4));
                self.pack_u64(m)
            }
            "gl_SMIDNV" | "gl_SMCountNV" | "gl_WarpsPerSMNV" => {
                nv_group(self)?;
                return self.unsup(format!("'{name}' (the reference models no SMs)"));
            }
            _ => return self.err(format!("'{name}' : undeclared identifier")),
        })
    }
}
