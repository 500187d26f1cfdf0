//! What a SPIR-V module asks of a Vulkan device, read from its words: capabilities,
//! extensions, the resources it declares (storage class, DescriptorSet, Binding, block
//! decoration) and the float atomics it performs (instruction, storage class, width). No
//! device is needed; the unit tests run anywhere.

use std::collections::HashMap;

/// A resource variable's kind as a Vulkan descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResourceKind {
    /// `StorageBuffer`, or `Uniform` of a `BufferBlock` struct (SPIR-V 1.0-1.3, as
    /// ARB_gl_spirv modules write SSBOs): a storage-buffer descriptor.
    StorageBuffer,
    /// `Uniform` of a `Block` struct: a uniform-buffer descriptor.
    UniformBuffer,
    /// `UniformConstant` of an `OpTypeImage` with Sampled 2 (a storage image), any Dim but
    /// `Buffer`: a storage-image descriptor.
    StorageImage,
    /// `UniformConstant` of an `OpTypeImage` of Dim `Buffer`, Sampled 2: a storage texel
    /// buffer descriptor.
    StorageTexelBuffer,
}

impl ResourceKind {
    /// The resource as messages name it.
    pub fn name(self) -> &'static str {
        match self {
            ResourceKind::StorageBuffer => "storage buffer",
            ResourceKind::UniformBuffer => "uniform buffer",
            ResourceKind::StorageImage => "storage image",
            ResourceKind::StorageTexelBuffer => "buffer image (storage texel buffer)",
        }
    }
}

/// What an image resource's `OpTypeImage` declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageType {
    /// The SPIR-V `Dim` (0 1D, 1 2D, 2 3D, 5 Buffer).
    pub dim: u32,
    pub arrayed: bool,
    /// The SPIR-V `Image Format` operand (0: Unknown).
    pub format: u32,
}

/// One resource variable of the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    pub id: u32,
    pub kind: ResourceKind,
    pub set: Option<u32>,
    pub binding: Option<u32>,
    /// Descriptors the variable holds: 1, or the length of an array of blocks or images
    /// (one binding with that many array elements in Vulkan).
    pub count: u32,
    /// The image type of an image resource.
    pub image: Option<ImageType>,
}

/// A float atomic instruction: what it does, where, on how many bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatAtomic {
    pub op: AtomicOp,
    /// Storage buffer (`Uniform`, `StorageBuffer`, `PhysicalStorageBuffer`) or workgroup.
    pub shared: bool,
    pub width: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// OpAtomicFAddEXT.
    Add,
    /// OpAtomicFMinEXT, OpAtomicFMaxEXT.
    MinMax,
    /// OpAtomicLoad, OpAtomicStore, OpAtomicExchange on a float.
    LoadStoreExchange,
}

/// The facts of a module the Vulkan runner checks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Module {
    /// SPIR-V version (major, minor) from the header.
    pub version: (u32, u32),
    pub capabilities: Vec<u32>,
    pub extensions: Vec<String>,
    pub resources: Vec<Resource>,
    /// Variables of storage classes Vulkan has no descriptor for in this runner:
    /// (storage class, id).
    pub other_variables: Vec<(u32, u32)>,
    pub float_atomics: Vec<FloatAtomic>,
    /// Entry points: (execution model, name).
    pub entry_points: Vec<(u32, String)>,
    /// Whether the module performs atomics on image texels (OpImageTexelPointer).
    pub image_atomics: bool,
}

// Opcodes.
const OP_EXTENSION: u32 = 10;
const OP_ENTRY_POINT: u32 = 15;
const OP_CAPABILITY: u32 = 17;
const OP_TYPE_FLOAT: u32 = 22;
const OP_TYPE_IMAGE: u32 = 25;
const OP_TYPE_ARRAY: u32 = 28;
const OP_CONSTANT: u32 = 43;
const OP_TYPE_POINTER: u32 = 32;
const OP_FUNCTION_PARAMETER: u32 = 55;
const OP_VARIABLE: u32 = 59;
const OP_IMAGE_TEXEL_POINTER: u32 = 60;
const OP_ACCESS_CHAIN: u32 = 65;
const OP_IN_BOUNDS_ACCESS_CHAIN: u32 = 66;
const OP_PTR_ACCESS_CHAIN: u32 = 67;
const OP_DECORATE: u32 = 71;
const OP_COPY_OBJECT: u32 = 83;
const OP_SELECT: u32 = 169;
const OP_ATOMIC_LOAD: u32 = 227;
const OP_ATOMIC_STORE: u32 = 228;
const OP_ATOMIC_EXCHANGE: u32 = 229;
const OP_PHI: u32 = 245;
const OP_ATOMIC_FMIN: u32 = 5614;
const OP_ATOMIC_FMAX: u32 = 5615;
const OP_ATOMIC_FADD: u32 = 6035;

// Decorations.
const DEC_BLOCK: u32 = 2;
const DEC_BUFFER_BLOCK: u32 = 3;
const DEC_BINDING: u32 = 33;
const DEC_DESCRIPTOR_SET: u32 = 34;

/// The SPIR-V `Dim` of a buffer image.
pub const DIM_BUFFER: u32 = 5;

// Storage classes.
pub const SC_UNIFORM_CONSTANT: u32 = 0;
pub const SC_INPUT: u32 = 1;
pub const SC_UNIFORM: u32 = 2;
pub const SC_OUTPUT: u32 = 3;
pub const SC_WORKGROUP: u32 = 4;
pub const SC_PRIVATE: u32 = 6;
pub const SC_FUNCTION: u32 = 7;
pub const SC_PUSH_CONSTANT: u32 = 9;
pub const SC_ATOMIC_COUNTER: u32 = 10;
pub const SC_IMAGE: u32 = 11;
pub const SC_STORAGE_BUFFER: u32 = 12;
pub const SC_PHYSICAL_STORAGE_BUFFER: u32 = 5349;

/// The name of a storage class, for messages.
pub fn storage_class_name(sc: u32) -> String {
    spirv::StorageClass::from_u32(sc)
        .map(|s| format!("{s:?}"))
        .unwrap_or_else(|| format!("storage class {sc}"))
}

/// The name of a capability, for messages.
pub fn capability_name(cap: u32) -> String {
    spirv::Capability::from_u32(cap)
        .map(|c| format!("{c:?}"))
        .unwrap_or_else(|| format!("capability {cap}"))
}

fn string_operand(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|b| *b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

impl Module {
    /// Reads the facts of `words` (a module spirv-val accepts; anything malformed is an
    /// error naming the word).
    pub fn parse(words: &[u32]) -> Result<Module, String> {
        if words.len() < 5 || words[0] != 0x0723_0203 {
            return Err("not a SPIR-V module (bad magic number or header)".into());
        }
        let mut m = Module {
            version: ((words[1] >> 16) & 0xff, (words[1] >> 8) & 0xff),
            ..Module::default()
        };
        let mut decorations: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
        let mut pointers: HashMap<u32, (u32, u32)> = HashMap::new();
        let mut floats: HashMap<u32, u32> = HashMap::new();
        let mut value_types: HashMap<u32, u32> = HashMap::new();
        let mut variables: Vec<(u32, u32, u32)> = Vec::new();
        let mut atomics: Vec<(u32, u32)> = Vec::new();
        let mut images: HashMap<u32, ImageType> = HashMap::new();
        let mut arrays: HashMap<u32, (u32, u32)> = HashMap::new();
        let mut constants: HashMap<u32, u32> = HashMap::new();
        let mut at = 5;
        while at < words.len() {
            let count = (words[at] >> 16) as usize;
            let op = words[at] & 0xffff;
            if count == 0 || at + count > words.len() {
                return Err(format!("malformed instruction at word {at}"));
            }
            let args = &words[at + 1..at + count];
            let arg = |i: usize| args.get(i).copied().unwrap_or(0);
            match op {
                OP_CAPABILITY => m.capabilities.push(arg(0)),
                OP_EXTENSION => m.extensions.push(string_operand(args)),
                OP_ENTRY_POINT => m
                    .entry_points
                    .push((arg(0), string_operand(args.get(2..).unwrap_or(&[])))),
                OP_DECORATE => decorations
                    .entry(arg(0))
                    .or_default()
                    .push((arg(1), arg(2))),
                OP_TYPE_FLOAT => {
                    floats.insert(arg(0), arg(1));
                }
                OP_TYPE_POINTER => {
                    pointers.insert(arg(0), (arg(1), arg(2)));
                }
                // Storage images only (Sampled 2); sampled images stay unknown.
                OP_TYPE_IMAGE if arg(6) == 2 => {
                    images.insert(
                        arg(0),
                        ImageType {
                            dim: arg(2),
                            arrayed: arg(4) != 0,
                            format: arg(7),
                        },
                    );
                }
                OP_TYPE_ARRAY => {
                    arrays.insert(arg(0), (arg(1), arg(2)));
                }
                // The low word: an array length is a 32-bit integer in the modules at hand.
                OP_CONSTANT => {
                    constants.insert(arg(1), arg(2));
                }
                OP_IMAGE_TEXEL_POINTER => m.image_atomics = true,
                OP_VARIABLE => {
                    value_types.insert(arg(1), arg(0));
                    variables.push((arg(1), arg(0), arg(2)));
                }
                OP_ACCESS_CHAIN
                | OP_IN_BOUNDS_ACCESS_CHAIN
                | OP_PTR_ACCESS_CHAIN
                | OP_COPY_OBJECT
                | OP_FUNCTION_PARAMETER
                | OP_SELECT
                | OP_PHI => {
                    value_types.insert(arg(1), arg(0));
                }
                OP_ATOMIC_FADD | OP_ATOMIC_FMIN | OP_ATOMIC_FMAX | OP_ATOMIC_LOAD
                | OP_ATOMIC_EXCHANGE => atomics.push((op, arg(2))),
                OP_ATOMIC_STORE => atomics.push((op, arg(0))),
                _ => {}
            }
            at += count;
        }
        let decoration = |id: u32, d: u32| {
            decorations
                .get(&id)
                .and_then(|v| v.iter().find(|(k, _)| *k == d))
                .map(|(_, x)| *x)
        };
        for (id, ty, sc) in variables {
            let pointee = pointers.get(&ty).map(|p| p.1).unwrap_or(0);
            // An array of blocks or images: one binding of `count` descriptors in Vulkan.
            let (element, count) = match arrays.get(&pointee) {
                Some(&(element, length)) => match constants.get(&length) {
                    Some(&n) if n > 0 => (element, n),
                    _ => (pointee, 0),
                },
                None => (pointee, 1),
            };
            let kind = match sc {
                _ if count == 0 => None,
                SC_STORAGE_BUFFER => Some(ResourceKind::StorageBuffer),
                SC_UNIFORM if decoration(element, DEC_BUFFER_BLOCK).is_some() => {
                    Some(ResourceKind::StorageBuffer)
                }
                SC_UNIFORM if decoration(element, DEC_BLOCK).is_some() => {
                    Some(ResourceKind::UniformBuffer)
                }
                SC_UNIFORM_CONSTANT => match images.get(&element) {
                    Some(i) if i.dim == DIM_BUFFER => Some(ResourceKind::StorageTexelBuffer),
                    Some(_) => Some(ResourceKind::StorageImage),
                    None => None,
                },
                SC_INPUT | SC_OUTPUT | SC_WORKGROUP | SC_PRIVATE | SC_FUNCTION => continue,
                _ => None,
            };
            match kind {
                Some(kind) => m.resources.push(Resource {
                    id,
                    kind,
                    set: decoration(id, DEC_DESCRIPTOR_SET),
                    binding: decoration(id, DEC_BINDING),
                    count,
                    image: images.get(&element).copied(),
                }),
                None => m.other_variables.push((sc, id)),
            }
        }
        for (op, pointer) in atomics {
            let Some(&(sc, pointee)) = value_types.get(&pointer).and_then(|t| pointers.get(t))
            else {
                continue;
            };
            let Some(&width) = floats.get(&pointee) else {
                continue;
            };
            let op = match op {
                OP_ATOMIC_FADD => AtomicOp::Add,
                OP_ATOMIC_FMIN | OP_ATOMIC_FMAX => AtomicOp::MinMax,
                _ => AtomicOp::LoadStoreExchange,
            };
            let atomic = FloatAtomic {
                op,
                shared: sc == SC_WORKGROUP,
                width,
            };
            if !m.float_atomics.contains(&atomic) {
                m.float_atomics.push(atomic);
            }
        }
        Ok(m)
    }
}

/// `words` with the `Binding` decoration of each variable in `bindings` (variable id, new
/// binding) set to the new number. GL gives storage buffers, uniform buffers and image units
/// a binding namespace each; Vulkan has one per descriptor set, so the runner moves a
/// resource whose binding another kind already holds (docs/DRIVERS.md, "Vulkan drivers").
pub fn rebind(words: &[u32], bindings: &[(u32, u32)]) -> Vec<u32> {
    let mut out = words.to_vec();
    let mut at = 5;
    while at < out.len() {
        let count = (out[at] >> 16) as usize;
        if count == 0 {
            break;
        }
        if out[at] & 0xffff == OP_DECORATE && count >= 4 && out[at + 2] == DEC_BINDING {
            if let Some(&(_, b)) = bindings.iter().find(|(id, _)| *id == out[at + 1]) {
                out[at + 3] = b;
            }
        }
        at += count;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module's words from hand-written instructions: (opcode, operands).
    pub(crate) fn module(insts: &[(u32, Vec<u32>)]) -> Vec<u32> {
        let mut w = vec![0x0723_0203, 0x0001_0000, 0, 100, 0];
        for (op, args) in insts {
            w.push(((args.len() as u32 + 1) << 16) | op);
            w.extend(args);
        }
        w
    }

    #[test]
    fn reads_resources_and_float_atomics() {
        // %float = 2, %Buf = 3, %ptr_Buf(Uniform) = 4, %var = 5, %ptr_f(Uniform) = 6,
        // %chain = 7, %add = 8; %ptr_wg_f = 9, %shared = 10.
        let words = module(&[
            (OP_CAPABILITY, vec![1]),
            (OP_CAPABILITY, vec![6033]),
            (
                OP_EXTENSION,
                vec![
                    u32::from_le_bytes(*b"SPV_"),
                    u32::from_le_bytes(*b"X\0\0\0"),
                ],
            ),
            (OP_DECORATE, vec![3, DEC_BUFFER_BLOCK]),
            (OP_DECORATE, vec![5, DEC_DESCRIPTOR_SET, 0]),
            (OP_DECORATE, vec![5, DEC_BINDING, 3]),
            (OP_TYPE_FLOAT, vec![2, 32]),
            (OP_TYPE_POINTER, vec![4, SC_UNIFORM, 3]),
            (OP_TYPE_POINTER, vec![6, SC_UNIFORM, 2]),
            (OP_TYPE_POINTER, vec![9, SC_WORKGROUP, 2]),
            (OP_VARIABLE, vec![4, 5, SC_UNIFORM]),
            (OP_VARIABLE, vec![9, 10, SC_WORKGROUP]),
            (OP_ACCESS_CHAIN, vec![6, 7, 5, 11, 11]),
            (OP_ATOMIC_FADD, vec![2, 8, 7, 12, 13, 14]),
            (OP_ATOMIC_FADD, vec![2, 15, 10, 12, 13, 14]),
        ]);
        let m = Module::parse(&words).unwrap();
        assert_eq!(m.version, (1, 0));
        assert_eq!(m.capabilities, [1, 6033]);
        assert_eq!(m.extensions, ["SPV_X"]);
        assert_eq!(
            m.resources,
            [Resource {
                id: 5,
                kind: ResourceKind::StorageBuffer,
                set: Some(0),
                binding: Some(3),
                count: 1,
                image: None,
            }]
        );
        assert_eq!(
            m.float_atomics,
            [
                FloatAtomic {
                    op: AtomicOp::Add,
                    shared: false,
                    width: 32
                },
                FloatAtomic {
                    op: AtomicOp::Add,
                    shared: true,
                    width: 32
                }
            ]
        );
        assert!(Module::parse(&[1, 2, 3]).is_err());
        assert_eq!(capability_name(6033), "AtomicFloat32AddEXT");
    }

    #[test]
    fn reads_arrays_of_blocks_and_storage_images() {
        // %uint = 2, %c2 = 3 (2), %Buf = 4 (BufferBlock), %arr = 5 (Buf[2]), %parr = 6,
        // %blocks = 7 at binding 1; %img = 8 (uint 2D, Sampled 2, R32ui), %pimg = 9,
        // %image = 10 at binding 0; %tb = 11 (Dim Buffer), %ptb = 12, %texels = 13;
        // %ptex = 14, %tp = 15 (OpImageTexelPointer).
        let words = module(&[
            (OP_DECORATE, vec![4, DEC_BUFFER_BLOCK]),
            (OP_DECORATE, vec![7, DEC_DESCRIPTOR_SET, 0]),
            (OP_DECORATE, vec![7, DEC_BINDING, 1]),
            (OP_DECORATE, vec![10, DEC_DESCRIPTOR_SET, 0]),
            (OP_DECORATE, vec![10, DEC_BINDING, 0]),
            (OP_DECORATE, vec![13, DEC_DESCRIPTOR_SET, 0]),
            (OP_DECORATE, vec![13, DEC_BINDING, 2]),
            (OP_CONSTANT, vec![2, 3, 2]),
            (OP_TYPE_ARRAY, vec![5, 4, 3]),
            (OP_TYPE_POINTER, vec![6, SC_UNIFORM, 5]),
            (OP_VARIABLE, vec![6, 7, SC_UNIFORM]),
            (OP_TYPE_IMAGE, vec![8, 2, 1, 0, 0, 0, 2, 33]),
            (OP_TYPE_POINTER, vec![9, SC_UNIFORM_CONSTANT, 8]),
            (OP_VARIABLE, vec![9, 10, SC_UNIFORM_CONSTANT]),
            (OP_TYPE_IMAGE, vec![11, 2, DIM_BUFFER, 0, 0, 0, 2, 33]),
            (OP_TYPE_POINTER, vec![12, SC_UNIFORM_CONSTANT, 11]),
            (OP_VARIABLE, vec![12, 13, SC_UNIFORM_CONSTANT]),
            (OP_IMAGE_TEXEL_POINTER, vec![14, 15, 10, 3, 3]),
        ]);
        let m = Module::parse(&words).unwrap();
        let r2d = ImageType {
            dim: 1,
            arrayed: false,
            format: 33,
        };
        assert_eq!(
            m.resources,
            [
                Resource {
                    id: 7,
                    kind: ResourceKind::StorageBuffer,
                    set: Some(0),
                    binding: Some(1),
                    count: 2,
                    image: None,
                },
                Resource {
                    id: 10,
                    kind: ResourceKind::StorageImage,
                    set: Some(0),
                    binding: Some(0),
                    count: 1,
                    image: Some(r2d),
                },
                Resource {
                    id: 13,
                    kind: ResourceKind::StorageTexelBuffer,
                    set: Some(0),
                    binding: Some(2),
                    count: 1,
                    image: Some(ImageType {
                        dim: DIM_BUFFER,
                        ..r2d
                    }),
                },
            ]
        );
        assert!(m.image_atomics);
        assert!(m.other_variables.is_empty());
        // Moving the image to binding 5 changes its Binding decoration only.
        let moved = Module::parse(&rebind(&words, &[(10, 5)])).unwrap();
        assert_eq!(moved.resources[1].binding, Some(5));
        assert_eq!(moved.resources[0].binding, Some(1));
        assert_eq!(moved.resources[2].binding, Some(2));
    }
}
