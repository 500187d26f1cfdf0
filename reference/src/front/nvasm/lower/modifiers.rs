//! NV assembly instruction modifiers: parsing `.F32.CC1.SAT ...` after an opcode, storage
//! modifiers (`U32`, `F32X4`, ...), atomic operation modifiers, and the data type an ALU
//! instruction operates on (with the opcodes that allow only float or only integer types).

use super::{diag, unsupported, upper, Cx, Res, R_ATOMS, R_INSTR};
use crate::ir::{AtomicOp, Kind, MemTy, ScalarTy, UnOp};

/// Parsed instruction modifiers (`.F32.CC1.SAT` ...), interpreted per opcode.
#[derive(Clone, Debug, Default)]
pub(super) struct Mods {
    pub(super) dtype: Option<ScalarTy>,
    pub(super) cc: Option<usize>,
    pub(super) sat: Option<bool>, // Some(false): SAT, Some(true): SSAT
    pub(super) storage: Vec<MemTy>,
    pub(super) atomic: Option<AtomicOp>,
    pub(super) round: Option<UnOp>,
    pub(super) cta: bool,
    pub(super) hi: bool,
    /// MUL.S24 / MUL.U24: a multiply of 24-bit operands, the data type implied (S or U).
    pub(super) mul24: Option<Kind>,
    /// NTC: no data type checks on the operands and result (NV_gpu_program4 2.X.4.1).
    pub(super) ntc: bool,
}

pub(super) fn parse_storage(m: &str) -> Option<MemTy> {
    let (base, lanes) = match m.split_once('X') {
        Some((b, n)) => (b, n.parse::<u8>().ok().filter(|n| *n == 2 || *n == 4)?),
        None => (m, 1),
    };
    let kind = match base.chars().next()? {
        'U' => Kind::U,
        'S' => Kind::S,
        'F' => Kind::F,
        _ => return None,
    };
    let bits: u8 = base[1..].parse().ok()?;
    let ok = match kind {
        Kind::F => matches!(bits, 16 | 32 | 64),
        _ => matches!(bits, 8 | 16 | 32 | 64),
    };
    // Vector forms exist for 32- and 64-bit types only (NV_gpu_program5 <opModifier>).
    if !ok || (lanes > 1 && bits < 32) {
        return None;
    }
    Some(MemTy::new(ScalarTy::new(kind, bits), lanes))
}

pub(super) fn storage_name(t: MemTy) -> String {
    let k = match t.scalar.kind {
        Kind::U => "U",
        Kind::S => "S",
        Kind::F => "F",
        Kind::B => "B",
    };
    if t.lanes > 1 {
        format!("{k}{}X{}", t.scalar.bits, t.lanes)
    } else {
        format!("{k}{}", t.scalar.bits)
    }
}

pub(super) fn atomic_name(op: AtomicOp) -> &'static str {
    match op {
        AtomicOp::Add => "ADD",
        AtomicOp::Min => "MIN",
        AtomicOp::Max => "MAX",
        AtomicOp::And => "AND",
        AtomicOp::Or => "OR",
        AtomicOp::Xor => "XOR",
        AtomicOp::Exch => "EXCH",
        AtomicOp::CmpXchg => "CSWAP",
        AtomicOp::IWrap => "IWRAP",
        AtomicOp::DWrap => "DWRAP",
    }
}

fn float_only(op: &str) -> bool {
    matches!(
        op,
        "RCP"
            | "RSQ"
            | "EX2"
            | "LG2"
            | "SIN"
            | "COS"
            | "POW"
            | "DP2"
            | "DP3"
            | "DP4"
            | "DPH"
            | "FRC"
            | "SSG"
            | "NRM"
            | "XPD"
            | "SCS"
    )
}

fn int_only(op: &str) -> bool {
    matches!(
        op,
        "AND"
            | "OR"
            | "XOR"
            | "NOT"
            | "SHL"
            | "SHR"
            | "MOD"
            | "I2F"
            | "BFE"
            | "BFI"
            | "BFR"
            | "BTC"
            | "BTFL"
            | "BTFM"
            | "SAD"
    )
}

impl Cx {
    /// Parses `.MOD.MOD...` after an opcode.
    pub(super) fn mods(&mut self, op: &str) -> Res<Mods> {
        let mem = matches!(
            op,
            "LDB" | "STB" | "ATOMB" | "LDS" | "STS" | "ATOMS" | "CVT"
        );
        let atomic = matches!(op, "ATOMB" | "ATOMS");
        let mut m = Mods::default();
        while self.is_sym('.') {
            self.next();
            let (l, c) = self.here();
            let name = self.ident("an instruction modifier")?;
            let up = upper(&name);
            let dup = |what: &str| diag(l, c, format!("{op} has two {what} modifiers {R_INSTR}"));
            match up.as_str() {
                "CC" | "CC0" | "CC1" => {
                    if m.cc.is_some() {
                        return Err(dup("condition code"));
                    }
                    m.cc = Some(if up == "CC1" { 1 } else { 0 });
                }
                "SAT" | "SSAT" => {
                    if m.sat.is_some() {
                        return Err(dup("saturation"));
                    }
                    m.sat = Some(up == "SSAT");
                }
                "ROUND" | "CEIL" | "FLR" | "TRUNC" => {
                    if m.round.is_some() {
                        return Err(dup("rounding"));
                    }
                    m.round = Some(match up.as_str() {
                        "ROUND" => UnOp::RoundEven,
                        "CEIL" => UnOp::Ceil,
                        "FLR" => UnOp::Floor,
                        _ => UnOp::Trunc,
                    });
                }
                "CTA" if op == "MEMBAR" => m.cta = true,
                "NTC" => {
                    if m.ntc {
                        return Err(dup("NTC"));
                    }
                    m.ntc = true;
                }
                // NV_gpu_program4 MUL: "S24", "U24" and "HI" "are allowed only for the MUL
                // instruction".
                "S24" | "U24" if op == "MUL" => {
                    if m.mul24.is_some() {
                        return Err(dup("24-bit multiply"));
                    }
                    m.mul24 = Some(if up == "S24" { Kind::S } else { Kind::U });
                }
                // Memory ordering hints: the interpreter is sequentially consistent, so
                // coherent/volatile accesses behave as all accesses do; PREC has no effect on
                // an exactly-rounding interpreter.
                "COH" | "VOL" if mem && op != "CVT" => {}
                "PREC" => {}
                "HI" if op == "MUL" => m.hi = true,
                "ADD" | "MIN" | "MAX" | "IWRAP" | "DWRAP" | "AND" | "OR" | "XOR" | "EXCH"
                | "CSWAP"
                    if atomic =>
                {
                    if m.atomic.is_some() {
                        return Err(diag(l, c, format!("{op} takes exactly one atomic modifier, found a second one (\"{up}\") {R_ATOMS}")));
                    }
                    m.atomic = Some(match up.as_str() {
                        "ADD" => AtomicOp::Add,
                        "MIN" => AtomicOp::Min,
                        "MAX" => AtomicOp::Max,
                        "IWRAP" => AtomicOp::IWrap,
                        "DWRAP" => AtomicOp::DWrap,
                        "AND" => AtomicOp::And,
                        "OR" => AtomicOp::Or,
                        "XOR" => AtomicOp::Xor,
                        "EXCH" => AtomicOp::Exch,
                        _ => AtomicOp::CmpXchg,
                    });
                }
                "F" | "U" | "S" if mem => {
                    return Err(diag(l, c, format!("{op} supports no data type modifiers, it takes a storage modifier (U32, S32, F32, ...) instead {R_INSTR}")));
                }
                "F" | "U" | "S" | "F32" | "U32" | "S32" | "F64" | "U64" | "S64" if !mem => {
                    if m.dtype.is_some() {
                        return Err(dup("data type"));
                    }
                    let k = match &up[..1] {
                        "F" => Kind::F,
                        "U" => Kind::U,
                        _ => Kind::S,
                    };
                    let bits = if up.len() == 1 {
                        32
                    } else {
                        up[1..].parse().unwrap_or(32)
                    };
                    m.dtype = Some(ScalarTy::new(k, bits));
                }
                _ => match parse_storage(&up) {
                    Some(t) if mem => m.storage.push(t),
                    Some(_) => {
                        return Err(diag(
                            l,
                            c,
                            format!("storage modifier \"{up}\" is not allowed on {op} {R_INSTR}"),
                        ));
                    }
                    // The packed-vector storage modifiers of NV_shader_atomic_fp16_vector and
                    // NV_gpu_program5_mem_extended: valid, not modelled.
                    None if (matches!(up.as_str(), "F16X2" | "F16X4")
                        && self.opt_other.contains(&"NV_shader_atomic_fp16_vector"))
                        || (matches!(
                            up.as_str(),
                            "F16X2"
                                | "F16X4"
                                | "S8X2"
                                | "S8X4"
                                | "S16X2"
                                | "S16X4"
                                | "U8X2"
                                | "U8X4"
                                | "U16X2"
                                | "U16X4"
                        ) && self.opt_other.contains(&"NV_gpu_program5_mem_extended")) =>
                    {
                        return Err(unsupported(
                            l,
                            c,
                            format!("the storage modifier \"{up}\" (packed vectors) is not modeled by the reference"),
                        ));
                    }
                    None => {
                        return Err(diag(l, c, format!("unknown or misplaced instruction modifier \"{name}\" on {op} {R_INSTR}")));
                    }
                },
            }
        }
        Ok(m)
    }

    /// The operation type of an ALU instruction from its data type modifier.
    pub(super) fn op_type(&self, op: &str, m: &Mods) -> Res<ScalarTy> {
        if let Some(k) = m.mul24 {
            // NV_gpu_program4 MUL: "If "S24" or "U24" is specified, the data type is implied
            // and normal data type modifiers may not be provided"; HI needs one (S or U).
            let (l, c) = self.cur_loc;
            if m.dtype.is_some() || m.hi {
                return Err(diag(
                    l,
                    c,
                    format!("MUL.S24 and MUL.U24 imply the data type: no data type modifier and no HI may be given {R_INSTR}"),
                ));
            }
            return Ok(ScalarTy::new(k, 32));
        }
        let def = if int_only(op) {
            ScalarTy::S32
        } else {
            ScalarTy::F32
        };
        let t = m.dtype.unwrap_or(def);
        let (l, c) = self.cur_loc;
        if float_only(op) && t.kind != Kind::F {
            return Err(diag(
                l,
                c,
                format!("{op} supports only floating-point data types {R_INSTR}"),
            ));
        }
        if int_only(op) && t.kind == Kind::F {
            return Err(diag(
                l,
                c,
                format!("{op} supports only integer data types (S, U) {R_INSTR}"),
            ));
        }
        if m.sat.is_some() && t.kind != Kind::F {
            return Err(diag(
                l,
                c,
                format!("saturation modifiers apply only to floating-point operations {R_INSTR}"),
            ));
        }
        Ok(t)
    }
}
