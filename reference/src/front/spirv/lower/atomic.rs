//! Atomic instructions (OpAtomic*): one IR `Atomic` on the storage the pointer points into;
//! increments, decrements and subtractions become additions. Scopes and memory semantics do
//! not change the result (the executor is sequentially consistent).

use super::{Base, Fcx, Lowerer, Val, R};
use crate::ir::{AtomicOp, BinOp, Dst, Inst, Kind, Reg, ScalarTy, Src, Ty};
use rspirv::dr::Instruction;
use rspirv::spirv::Op;

impl<'a, 'm> Lowerer<'a, 'm> {
    pub(super) fn atomic(
        &mut self,
        fcx: &mut Fcx,
        inst: &Instruction,
        op: AtomicOp,
        kind: Option<Kind>,
    ) -> R<()> {
        if self.image_atomic(fcx, inst, op, kind)? {
            return Ok(());
        }
        let p = self.ptr_operand(fcx, inst, 0)?;
        let Base::Mem(space) = p.base else {
            return self.err(inst, "atomic on a built-in input");
        };
        let _scope = self.const_of(inst, 1)?;
        let opc = inst.class.opcode;
        let Some((s, 1)) = self.scalar_lanes(p.ty) else {
            return self.err(inst, "atomic on a pointer to a non-scalar");
        };
        let ty = match kind {
            Some(k) => Self::with_kind(s, k),
            None => s,
        };
        let addr = self.addr(&p);
        let (a, b) = self.atomic_operands(fcx, inst, ty)?;
        let dst = if opc == Op::AtomicStore {
            None
        } else {
            Some(self.b.reg())
        };
        self.b.push(Inst::Atomic {
            space,
            op,
            ty,
            // The old value is a scalar: only .x is written.
            dst: dst.map(|d| Dst::masked(d, 1)),
            addr,
            a: Src::new(a),
            b: Src::new(b),
        });
        if let Some(d) = dst {
            self.set(fcx, inst, Val::R(d));
        }
        Ok(())
    }

    /// The `a` and `b` operands of the IR atomic for `inst` on a value of type `ty`:
    /// increments and decrements add 1 and -1, a subtraction adds the negated value, a
    /// compare-exchange compares with the Comparator and stores the Value, a load or store
    /// takes 0 or the value.
    pub(super) fn atomic_operands(
        &mut self,
        fcx: &Fcx,
        inst: &Instruction,
        ty: ScalarTy,
    ) -> R<(Reg, Reg)> {
        let zero = self.b.interned_constant([0; 4]);
        Ok(match inst.class.opcode {
            Op::AtomicIIncrement => (self.b.interned_constant([1, 0, 0, 0]), zero),
            Op::AtomicIDecrement => (self.b.interned_constant([ty.mask(), 0, 0, 0]), zero),
            Op::AtomicCompareExchange => (
                self.reg_operand(fcx, inst, 5)?,
                self.reg_operand(fcx, inst, 4)?,
            ),
            Op::AtomicStore => (self.reg_operand(fcx, inst, 3)?, zero),
            Op::AtomicLoad => (zero, zero),
            Op::AtomicISub => {
                let v = self.reg_operand(fcx, inst, 3)?;
                let n = self.b.reg();
                self.b.bin(
                    BinOp::Sub,
                    Ty::new(Self::with_kind(ty, Kind::U), 1),
                    Dst::new(n),
                    Src::new(zero),
                    Src::new(v),
                );
                (n, zero)
            }
            _ => (self.reg_operand(fcx, inst, 3)?, zero),
        })
    }
}
