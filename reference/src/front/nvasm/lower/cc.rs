//! NV assembly condition codes: parsing a test (`GT1.xyzw`), and emitting its evaluation,
//! per component or reduced to "any component passes" for branch conditions.

use super::{diag, upper, Cx, Res};
use crate::ir::{BinOp, CcTest, Dst, Inst, Reg, ScalarTy, Src, Ty};

impl Cx {
    pub(super) fn cc_test(&mut self) -> Res<(CcTest, usize, [u8; 4])> {
        let (l, c) = self.here();
        let name = upper(&self.ident("a condition code test")?);
        let (base, idx) = match name.strip_suffix('0') {
            Some(b) => (b.to_string(), 0),
            None => match name.strip_suffix('1') {
                Some(b) => (b.to_string(), 1),
                None => (name.clone(), 0),
            },
        };
        let t = match base.as_str() {
            "EQ" => CcTest::Eq,
            "NE" => CcTest::Ne,
            "LT" => CcTest::Lt,
            "LE" => CcTest::Le,
            "GT" => CcTest::Gt,
            "GE" => CcTest::Ge,
            "TR" => CcTest::Tr,
            "FL" => CcTest::Fl,
            "NAN" => CcTest::Nan,
            "LEG" => CcTest::Leg,
            "SF" => CcTest::Sf,
            "NSF" => CcTest::Nsf,
            "CF" => CcTest::Cf,
            "NCF" => CcTest::Ncf,
            "OF" => CcTest::Of,
            "NOF" => CcTest::Nof,
            "AB" => CcTest::Ab,
            "BLE" => CcTest::Ble,
            _ => {
                return Err(diag(
                    l,
                    c,
                    format!("unknown condition code test \"{name}\" (NV_gpu_program4, Table X.16)"),
                ))
            }
        };
        let sw = self.swizzle()?;
        Ok((t, idx, sw))
    }

    /// Emits the test of a condition code into a scratch register; returns it.
    pub(super) fn emit_cc_test(&mut self, cc: (CcTest, usize, [u8; 4])) -> Reg {
        let s = self.scratch();
        let ccr = self.cc[cc.1];
        self.b.push(Inst::TestCc {
            test: cc.0,
            dst: Dst::new(s),
            cc: Src::swizzled(ccr, cc.2),
        });
        s
    }

    /// An optional `(TEST.swz)` branch condition of BRK/CONT/CAL/RET.
    pub(super) fn optional_cc(&mut self) -> Res<Option<Reg>> {
        if !self.eat_sym('(') {
            return Ok(None);
        }
        let cc = self.cc_test()?;
        self.expect_sym(')', "to close the condition")?;
        Ok(Some(self.emit_cc_any(cc)))
    }

    /// Tests a condition code and reduces it: true when any swizzled component passes
    /// (NV_gpu_program4 IF/BRK/CONT/CAL/RET). The result is in component x.
    pub(super) fn emit_cc_any(&mut self, cc: (CcTest, usize, [u8; 4])) -> Reg {
        let s = self.emit_cc_test(cc);
        let u = ScalarTy::U32;
        self.b.bin(
            BinOp::Or,
            Ty::new(u, 2),
            Dst::masked(s, 3),
            Src::swizzled(s, [0, 2, 0, 0]),
            Src::swizzled(s, [1, 3, 0, 0]),
        );
        self.b.bin(
            BinOp::Or,
            Ty::new(u, 1),
            Dst::masked(s, 1),
            Src::splat(s, 0),
            Src::splat(s, 1),
        );
        s
    }
}
