//! Image accesses in the IR (ARB_shader_image_load_store, GL 4.6 §8.26): the image unit
//! formats of Table X.2 with the layout of their texels (Table X.3), what an image variable
//! declares (dimensionality, component type, format qualifier), and the operations of
//! [`super::Inst::Image`]. The executor's side (texel memory, conversions) is `exec::image`.

use super::{AtomicOp, Dst, Kind, Src};
pub use conform_plan::ImageDim;

/// How one component of a texel is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Enc {
    /// IEEE float (32 or 16 bits), or the unsigned 11- and 10-bit floats of
    /// R11F_G11F_B10F (GL 4.6 §2.3.4.3, §2.3.4.4).
    Float,
    /// Unsigned normalized fixed point (GL 4.6 §2.3.5.1).
    Unorm,
    /// Signed normalized fixed point (GL 4.6 §2.3.5.1).
    Snorm,
    /// Unsigned integer.
    Uint,
    /// Signed (two's complement) integer.
    Sint,
}

macro_rules! formats {
    ($($v:ident = $name:literal, $enc:ident, [$($bits:literal),*];)*) => {
        /// An image unit format with its format layout qualifier (ARB_shader_image_load_store
        /// Table X.2), every one of the table.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Format { $($v,)* }

        impl Format {
            pub const ALL: &'static [Format] = &[$(Format::$v,)*];

            /// The format layout qualifier (`rgba8_snorm`).
            pub fn name(self) -> &'static str {
                match self { $(Format::$v => $name,)* }
            }

            /// How the components are encoded.
            pub fn enc(self) -> Enc {
                match self { $(Format::$v => Enc::$enc,)* }
            }

            /// The width in bits of each component (R, G, B, A order), packed from the least
            /// significant bit of the little-endian texel up (Table X.3's pixel types: plain
            /// types component after component; the `_REV` packed types R in the low bits).
            pub fn bits(self) -> &'static [u8] {
                match self { $(Format::$v => &[$($bits),*],)* }
            }
        }
    };
}

formats! {
    Rgba32f = "rgba32f", Float, [32, 32, 32, 32];
    Rgba16f = "rgba16f", Float, [16, 16, 16, 16];
    Rg32f = "rg32f", Float, [32, 32];
    Rg16f = "rg16f", Float, [16, 16];
    R11fG11fB10f = "r11f_g11f_b10f", Float, [11, 11, 10];
    R32f = "r32f", Float, [32];
    R16f = "r16f", Float, [16];
    Rgba32ui = "rgba32ui", Uint, [32, 32, 32, 32];
    Rgba16ui = "rgba16ui", Uint, [16, 16, 16, 16];
    Rgb10A2ui = "rgb10_a2ui", Uint, [10, 10, 10, 2];
    Rgba8ui = "rgba8ui", Uint, [8, 8, 8, 8];
    Rg32ui = "rg32ui", Uint, [32, 32];
    Rg16ui = "rg16ui", Uint, [16, 16];
    Rg8ui = "rg8ui", Uint, [8, 8];
    R32ui = "r32ui", Uint, [32];
    R16ui = "r16ui", Uint, [16];
    R8ui = "r8ui", Uint, [8];
    Rgba32i = "rgba32i", Sint, [32, 32, 32, 32];
    Rgba16i = "rgba16i", Sint, [16, 16, 16, 16];
    Rgba8i = "rgba8i", Sint, [8, 8, 8, 8];
    Rg32i = "rg32i", Sint, [32, 32];
    Rg16i = "rg16i", Sint, [16, 16];
    Rg8i = "rg8i", Sint, [8, 8];
    R32i = "r32i", Sint, [32];
    R16i = "r16i", Sint, [16];
    R8i = "r8i", Sint, [8];
    Rgba16 = "rgba16", Unorm, [16, 16, 16, 16];
    Rgb10A2 = "rgb10_a2", Unorm, [10, 10, 10, 2];
    Rgba8 = "rgba8", Unorm, [8, 8, 8, 8];
    Rg16 = "rg16", Unorm, [16, 16];
    Rg8 = "rg8", Unorm, [8, 8];
    R16 = "r16", Unorm, [16];
    R8 = "r8", Unorm, [8];
    Rgba16Snorm = "rgba16_snorm", Snorm, [16, 16, 16, 16];
    Rgba8Snorm = "rgba8_snorm", Snorm, [8, 8, 8, 8];
    Rg16Snorm = "rg16_snorm", Snorm, [16, 16];
    Rg8Snorm = "rg8_snorm", Snorm, [8, 8];
    R16Snorm = "r16_snorm", Snorm, [16];
    R8Snorm = "r8_snorm", Snorm, [8];
}

impl Format {
    /// The format a format layout qualifier names (layout names are not case sensitive,
    /// GLSL §4.4).
    pub fn parse(name: &str) -> Option<Format> {
        let lower = name.to_ascii_lowercase();
        Format::ALL.iter().copied().find(|f| f.name() == lower)
    }

    /// The format of a plan's image (the plan's formats are a subset of the table, with the
    /// same names).
    pub fn of_plan(f: conform_plan::ImageFormat) -> Format {
        // Every plan format is in Table X.2; the test below checks the names agree.
        Format::parse(f.name()).unwrap_or(Format::R32ui)
    }

    /// Bytes per texel (Table X.3's size column / 8).
    pub fn texel_bytes(self) -> u32 {
        self.bits().iter().map(|&b| u32::from(b)).sum::<u32>() / 8
    }

    /// The component type of the image variables that may use the format (GLSL §4.4.6.2: float
    /// qualifiers with `image*`, int ones with `iimage*`, uint ones with `uimage*`).
    pub fn kind(self) -> Kind {
        match self.enc() {
            Enc::Uint => Kind::U,
            Enc::Sint => Kind::S,
            Enc::Float | Enc::Unorm | Enc::Snorm => Kind::F,
        }
    }
}

/// What an image variable declares: the texture target it accesses, its component type
/// (`image*` F, `iimage*` S, `uimage*` U) and its format layout qualifier (None: none, allowed
/// only on an image used for stores alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageVar {
    pub dim: ImageDim,
    pub kind: Kind,
    pub format: Option<Format>,
}

/// The operation of an [`super::Inst::Image`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageOp {
    /// dst (4 lanes of the variable's component type) = the texel at `coord`.
    Load,
    /// The texel at `coord` = `a` (4 lanes).
    Store,
    /// dst = the image's size (width, height, depth or layers as the dimensionality uses,
    /// s32 lanes).
    Size,
    /// An atomic on the single 32-bit component of the texel at `coord` (r32ui, r32i, r32f):
    /// dst.x = the old value; `a` the data, `b` the value CmpXchg stores.
    Atomic(AtomicOp),
    /// texelFetch through a sampler: dst (4 lanes) = the texel at `coord` of level `a.x`
    /// (s32) of the texture on texture unit `unit.x`, unfiltered (GL 4.6 §11.1.3.2).
    Fetch,
}

/// An image access: the image unit is `unit.x` (u32), the texel coordinates are `coord`'s
/// lanes (s32; as many as the dimensionality uses, Table X.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageInst {
    pub op: ImageOp,
    pub var: ImageVar,
    pub dst: Option<Dst>,
    pub unit: Src,
    pub coord: Src,
    pub a: Src,
    pub b: Src,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_every_qualifier_with_its_size() {
        assert_eq!(Format::ALL.len(), 39);
        for f in Format::ALL {
            assert_eq!(Format::parse(f.name()), Some(*f));
            let bits: u32 = f.bits().iter().map(|&b| u32::from(b)).sum();
            assert_eq!(bits % 8, 0, "{f:?}");
        }
        // Table X.3's size column.
        let size = |n: &str| Format::parse(n).map(|f| f.texel_bytes() * 8);
        assert_eq!(size("rgba32f"), Some(128));
        assert_eq!(size("r11f_g11f_b10f"), Some(32));
        assert_eq!(size("rgb10_a2ui"), Some(32));
        assert_eq!(size("rg8_snorm"), Some(16));
        assert_eq!(size("r8"), Some(8));
        assert_eq!(Format::parse("RGBA8"), Some(Format::Rgba8));
        assert_eq!(Format::parse("rgb8"), None);
        for f in conform_plan::ImageFormat::ALL {
            let ours = Format::of_plan(f);
            assert_eq!(ours.name(), f.name());
            assert_eq!(u64::from(ours.texel_bytes()), f.texel_bytes());
        }
    }
}
