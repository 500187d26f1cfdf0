//! 8- and 16-bit storage: NV assembly's narrow storage modifiers on shared and storage memory.
//!
//! NV_gpu_program5 lets `LDB`/`STB` (NV_shader_storage_buffer_object) and `LDS`/`STS`
//! (NV_compute_program5) access memory as `U8`, `S8`, `U16` or `S16`: a store writes only the
//! low 8 or 16 bits of its operand and leaves the neighbouring bytes alone, and a load
//! zero-extends (`U8`, `U16`) or sign-extends (`S8`, `S16`) what it reads to 32 bits
//! (NV_gpu_program5 section 2.X.4.5, "storage modifiers"; the `STS`/`LDS` text of
//! NV_compute_program5). A [`NarrowBlock`] packs one small slot per invocation side by side,
//! so every store shares its word with its neighbours' stores, then reads a neighbour's slot
//! across a barrier.
//!
//! Only NV assembly has these modifiers: GLSL has no 8- or 16-bit storage in GL on the drivers
//! here, and none of them lists SPV_KHR_8bit_storage or SPV_KHR_16bit_storage in
//! GL_SPIR_V_EXTENSIONS, so [`crate::ast::Program::check`] keeps the block to NV assembly
//! (the reference and NVIDIA's driver run it).
//!
//! The block's node type and its rules are the tree's ([`crate::ast::narrow`]); this module
//! holds its semantics.

use crate::ast::{NarrowBlock, Program, Space};
use crate::oracles::model::value::{eval, BufferModel, Elem, Env, Want, SENTINEL};

/// What a storage-space region starts as: a byte pattern no store writes by accident
/// (0xA5 is neither a small number nor its sign extension's byte).
pub const REGION_FILL: u32 = 0xA5A5_A5A5;

/// The 32-bit value a load of `raw` (the slot's low bits) gives.
pub fn extend(raw: u32, bits: u8, signed: bool) -> u32 {
    let shift = 32 - u32::from(bits);
    if signed {
        (((raw << shift) as i32) >> shift) as u32
    } else {
        (raw << shift) >> shift
    }
}

/// The slot invocation `lid` reads.
pub fn source(nb: &NarrowBlock, lid: u32, local_size: u32) -> u32 {
    ((u64::from(lid) + u64::from(nb.rot)) % u64::from(local_size)) as u32
}

/// What the block must leave in its buffer: the loaded values at the global indices, then,
/// for storage, the region's words.
pub fn model(nb: &NarrowBlock, p: &Program) -> BufferModel {
    let n = p.local_size;
    let total = p.invocations();
    let mask = ((1u64 << nb.bits) - 1) as u32;
    let stored: Vec<u32> = (0..total)
        .map(|g| {
            let env = Env {
                lid: g % n,
                wg: g / n,
                ..Env::default()
            };
            eval(&nb.value, &env) & mask
        })
        .collect();
    let values: Vec<u32> = (0..total)
        .map(|g| {
            let (wg, lid) = (g / n, g % n);
            let raw = stored[(wg * n + source(nb, lid, n)) as usize];
            extend(raw, nb.bits, nb.load_signed)
        })
        .collect();
    let mut init = vec![SENTINEL; total as usize];
    let mut want = vec![Want::Values { at: 0, values }];
    if nb.space == Space::Storage {
        let words = (nb.region_bytes(total) / 4) as usize;
        let mut region = vec![0xA5u8; 4 * words];
        for (g, v) in stored.iter().enumerate() {
            let at = g * nb.bytes() as usize;
            let le = v.to_le_bytes();
            region[at..at + nb.bytes() as usize].copy_from_slice(&le[..nb.bytes() as usize]);
        }
        let region: Vec<u32> = region
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        want.push(Want::Values {
            at: total as usize,
            values: region,
        });
        init.extend(std::iter::repeat_n(REGION_FILL, words));
    }
    BufferModel {
        elem: Elem::U32,
        init,
        want,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{Block, Expr, Lang, Program};
    use quickcheck::quickcheck;

    fn block(space: Space, bits: u8, load_signed: bool, value: Expr, rot: u32) -> NarrowBlock {
        NarrowBlock {
            space,
            bits,
            store_signed: false,
            load_signed,
            value,
            rot,
        }
    }

    fn program(nb: &NarrowBlock, local_size: u32, groups: u32) -> Program {
        Program {
            lang: Lang::Nvasm,
            local_size,
            groups,
            blocks: vec![Block::Narrow(nb.clone())],
            shape: None,
        }
    }

    /// By hand: three invocations store 0x1FF - lid as bytes (0xFF, 0xFE, 0xFD) and read the
    /// next slot; S8 gives -2, -3, -1, U8 254, 253, 255. The storage region is the bytes
    /// FF FE FD and one A5 left over: the word 0xA5FDFEFF.
    #[test]
    fn bytes_extend_and_leave_their_neighbours() {
        let value = Expr::bin(crate::ast::BinOp::Sub, Expr::Const(0x1FF), Expr::Lid);
        let s = block(Space::Storage, 8, true, value.clone(), 1);
        let m = model(&s, &program(&s, 3, 1));
        assert_eq!(
            m.want,
            vec![
                Want::Values {
                    at: 0,
                    values: vec![(-2i32) as u32, (-3i32) as u32, (-1i32) as u32]
                },
                Want::Values {
                    at: 3,
                    values: vec![0xA5FD_FEFF]
                },
            ]
        );
        assert_eq!(m.init, vec![SENTINEL, SENTINEL, SENTINEL, REGION_FILL]);
        let u = block(Space::Shared, 8, false, value, 1);
        let m = model(&u, &program(&u, 3, 1));
        assert_eq!(
            m.want,
            vec![Want::Values {
                at: 0,
                values: vec![254, 253, 255]
            }]
        );
    }

    /// By hand: halfwords of 0x8000 + wg in two groups of one, each reading its own slot:
    /// S16 gives 0xFFFF8000 and 0xFFFF8001; the region word holds 0x8001 above 0x8000.
    #[test]
    fn halfwords_per_group() {
        let value = Expr::bin(crate::ast::BinOp::Add, Expr::Const(0x8000), Expr::Wg);
        let s = block(Space::Storage, 16, true, value, 5);
        let m = model(&s, &program(&s, 1, 2));
        assert_eq!(
            m.want,
            vec![
                Want::Values {
                    at: 0,
                    values: vec![0xFFFF_8000, 0xFFFF_8001]
                },
                Want::Values {
                    at: 2,
                    values: vec![0x8001_8000]
                },
            ]
        );
    }

    #[test]
    fn only_nv_assembly_and_real_widths() {
        let b = block(Space::Shared, 8, false, Expr::Lid, 0);
        assert_eq!(b.check(&program(&b, 4, 1)), Ok(()));
        let glsl = Program {
            lang: Lang::Glsl,
            ..program(&b, 4, 1)
        };
        assert!(b.check(&glsl).unwrap_err().contains("NV assembly only"));
        let b = block(Space::Shared, 12, false, Expr::Lid, 0);
        assert!(b.check(&program(&b, 4, 1)).is_err());
    }

    quickcheck! {
        /// Extension keeps the low bits, and fills the rest with zeros (U) or copies of the
        /// top stored bit (S).
        fn extension_keeps_the_low_bits(raw: u32, sixteen: bool, signed: bool) -> bool {
            let bits = if sixteen { 16 } else { 8 };
            let mask = (1u32 << bits) - 1;
            let x = extend(raw & mask, bits, signed);
            let top = (raw >> (bits - 1)) & 1 == 1;
            x & mask == raw & mask && x & !mask == if signed && top { !mask } else { 0 }
        }
    }
}
