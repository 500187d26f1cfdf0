//! Functions: every OpFunctionCall gets its own copy of the callee (SPIR-V shaders cannot
//! recurse), reached with `Call` and left with `Return`, so pointer arguments stay compile-time.
//! This module emits one copy (its phi registers and Function variables, then its body) and a
//! call site; `Lowerer::lower` emits the copies the calls left pending.

use super::{Fcx, Lowerer, Pending, Val, R};
use crate::front::spirv::module::{id_at, Type};
use crate::ir::Inst;
use crate::LIMITS;
use rspirv::dr::Instruction;
use rspirv::spirv::Op;
use std::collections::HashMap;

impl<'a, 'm> Lowerer<'a, 'm> {
    pub(super) fn emit_function(
        &mut self,
        func: usize,
        args: Vec<Val>,
        ret: Option<Val>,
        depth: u32,
    ) -> R<()> {
        if depth > LIMITS.max_call_depth {
            let def = self.funcs[func].def;
            return self.err(
                def,
                "function calls nest too deeply (recursion is not allowed)",
            );
        }
        let mut fcx = Fcx {
            func,
            vals: HashMap::new(),
            ret,
            phis: HashMap::new(),
            emitted: 0,
            depth,
            nest: 0,
        };
        let params = self.funcs[func].params.clone();
        for (p, a) in params.iter().zip(args) {
            fcx.vals.insert(*p, a);
        }
        // Phi registers and Function variables.
        let blocks = self.funcs[func].blocks.clone();
        for blk in &blocks {
            for inst in &blk.instructions {
                self.note_uniform_references(inst);
                match inst.class.opcode {
                    Op::Phi => {
                        let (Some(id), Some(rt)) = (inst.result_id, inst.result_type) else {
                            continue;
                        };
                        let Some(v) = self.alloc_val(rt, 0) else {
                            return self.err(inst, "OpPhi of an unsupported type");
                        };
                        fcx.phis.insert(id, v.clone());
                        fcx.vals.insert(id, v);
                    }
                    Op::Variable => {
                        let Some((id, pointee)) = self.variable(inst)? else {
                            continue;
                        };
                        let p = self.alloc_private(inst, pointee)?;
                        fcx.vals.insert(id, Val::P(p));
                    }
                    _ => {}
                }
            }
        }
        // Function variables start at their initializer, or at zero marked undefined, on every
        // call.
        for blk in &blocks {
            for inst in &blk.instructions {
                if inst.class.opcode != Op::Variable {
                    continue;
                }
                let Some(Val::P(p)) = inst.result_id.and_then(|i| fcx.vals.get(&i)).cloned() else {
                    continue;
                };
                let v = match id_at(inst, 1) {
                    Some(init) => match self.value(&fcx, init) {
                        Some(v) => v,
                        None => return self.err(inst, "variable initializer is not a constant"),
                    },
                    None => match self.undefined_val(p.ty) {
                        Some(z) => z,
                        None => continue,
                    },
                };
                self.store(inst, &p, &v, 0)?;
            }
        }
        let Some(first) = blocks.first().and_then(|b| b.label.as_ref()?.result_id) else {
            return self.err(self.funcs[func].def, "function without blocks");
        };
        self.region(&mut fcx, first, None, &[], true)?;
        // Falling off the end (unreachable in valid modules) returns.
        self.b.push(Inst::Return);
        Ok(())
    }

    pub(super) fn call(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<()> {
        let Some(fid) = id_at(inst, 0) else {
            return self.err(inst, "malformed OpFunctionCall");
        };
        let Some(&func) = self.func_index.get(&fid) else {
            return self.err(inst, "call of an undefined function");
        };
        let mut args = Vec::new();
        for i in 1..inst.operands.len() {
            args.push(self.operand(fcx, inst, i)?);
        }
        let ret = match inst.result_type {
            Some(rt) if !matches!(self.ty(rt), Type::Void) => match self.alloc_val(rt, 0) {
                Some(v) => Some(v),
                None => return self.err(inst, "function return type is not supported"),
            },
            _ => None,
        };
        let call_pc = self.b.push(Inst::Call { target_pc: 0 });
        self.pending.push(Pending {
            call_pc,
            func,
            args,
            ret: ret.clone(),
            depth: fcx.depth + 1,
        });
        if let Some(r) = ret {
            // Copy out so the value survives later calls of the same copy (each call site has
            // its own copy, but keep the result stable anyway).
            self.set(fcx, inst, r);
        }
        Ok(())
    }
}
