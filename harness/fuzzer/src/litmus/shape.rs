//! The litmus tests: the classic shapes (MP, SB, LB, S, 2+2W, CoRR, IRIW) as short per-thread
//! programs of loads and stores, the two scopes they run at (shared memory inside a work group,
//! storage buffers across work groups) and the fences placed between each thread's two
//! accesses, with what each fence means in the specs.
//!
//! A test is a shape, a scope and a fence. Every thread has at most two accesses; the fence
//! (when there is one) stands between them, or after the only one, and every invocation of
//! the dispatch executes it in uniform control flow (control barriers require it).

use serde::{Deserialize, Serialize};

/// A memory location of one instance: `x` is 0, `y` is 1.
pub type Loc = usize;

/// One access of a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Stores the value to the location.
    Store(Loc, u32),
    /// Loads the location into the next register of the outcome.
    Load(Loc),
}

/// A litmus shape: its threads' accesses, in program order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// Message passing: a store to x then y; a load of y then x. Weak: r0=1, r1=0.
    Mp,
    /// Store buffering: each thread stores one location and loads the other. Weak: r0=0, r1=0.
    Sb,
    /// Load buffering: each thread loads one location and stores the other. Weak: r0=1, r1=1.
    Lb,
    /// S: stores x=2, y=1; loads y, stores x=1. Weak: r0=1 and x ends 2.
    S,
    /// 2+2W: stores x=2, y=1; stores y=2, x=1. Weak: x and y both end 2.
    #[value(name = "2+2w")]
    #[serde(rename = "2+2w")]
    TwoPlusTwoW,
    /// Coherence of two reads: a store to x; two loads of x. Weak: r0=1, r1=0.
    Corr,
    /// Independent reads of independent writes: two writers, two readers reading x and y in
    /// opposite orders. Weak: r0=1, r1=0, r2=1, r3=0.
    Iriw,
}

use Op::{Load, Store};

/// How many loads a thread's accesses make.
pub fn loads(ops: &[Op]) -> usize {
    ops.iter().filter(|o| matches!(o, Load(_))).count()
}

/// Which of its thread's registers (0 or 1) the access at `index` loads into.
pub fn local_register(ops: &[Op], index: usize) -> usize {
    loads(&ops[..index.min(ops.len())])
}

impl Shape {
    pub const ALL: [Shape; 7] = [
        Shape::Mp,
        Shape::Sb,
        Shape::Lb,
        Shape::S,
        Shape::TwoPlusTwoW,
        Shape::Corr,
        Shape::Iriw,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Mp => "mp",
            Shape::Sb => "sb",
            Shape::Lb => "lb",
            Shape::S => "s",
            Shape::TwoPlusTwoW => "2+2w",
            Shape::Corr => "corr",
            Shape::Iriw => "iriw",
        }
    }

    /// The threads' accesses in program order.
    pub fn threads(self) -> Vec<Vec<Op>> {
        const X: Loc = 0;
        const Y: Loc = 1;
        match self {
            Shape::Mp => vec![vec![Store(X, 1), Store(Y, 1)], vec![Load(Y), Load(X)]],
            Shape::Sb => vec![vec![Store(X, 1), Load(Y)], vec![Store(Y, 1), Load(X)]],
            Shape::Lb => vec![vec![Load(X), Store(Y, 1)], vec![Load(Y), Store(X, 1)]],
            Shape::S => vec![vec![Store(X, 2), Store(Y, 1)], vec![Load(Y), Store(X, 1)]],
            Shape::TwoPlusTwoW => vec![
                vec![Store(X, 2), Store(Y, 1)],
                vec![Store(Y, 2), Store(X, 1)],
            ],
            Shape::Corr => vec![vec![Store(X, 1)], vec![Load(X), Load(X)]],
            Shape::Iriw => vec![
                vec![Store(X, 1)],
                vec![Store(Y, 1)],
                vec![Load(X), Load(Y)],
                vec![Load(Y), Load(X)],
            ],
        }
    }

    /// Locations of one instance (x, and y where the shape has it).
    pub fn locations(self) -> usize {
        if self == Shape::Corr {
            1
        } else {
            2
        }
    }

    /// Loads in the shape: the registers of the outcome.
    pub fn registers(self) -> usize {
        self.threads().iter().map(|ops| loads(ops)).sum()
    }

    /// The first register of each thread: registers are numbered in thread order.
    pub fn first_registers(self) -> Vec<usize> {
        let mut next = 0;
        self.threads()
            .iter()
            .map(|ops| {
                let first = next;
                next += loads(ops);
                first
            })
            .collect()
    }

    /// Elements of one instance's outcome tuple: the registers in thread order, then the
    /// locations' final values.
    pub fn width(self) -> usize {
        self.registers() + self.locations()
    }
}

/// Where the locations live and how an instance's threads are placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// Shared variables; an instance's threads are in one work group (lanes permuted).
    Workgroup,
    /// A coherent storage buffer; an instance's threads are spread over work groups.
    Device,
}

impl Scope {
    pub const ALL: [Scope; 2] = [Scope::Workgroup, Scope::Device];

    pub fn name(self) -> &'static str {
        match self {
            Scope::Workgroup => "workgroup",
            Scope::Device => "device",
        }
    }
}

/// The language a test is written in: the fuzzer's.
pub use crate::ast::Lang;

/// A fence as written in one language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fence {
    /// Nothing between the accesses.
    None,
    /// GLSL `memoryBarrier()`.
    MemoryBarrier,
    /// GLSL `memoryBarrierShared()`.
    MemoryBarrierShared,
    /// GLSL `memoryBarrierBuffer()`.
    MemoryBarrierBuffer,
    /// GLSL `groupMemoryBarrier()`.
    GroupMemoryBarrier,
    /// GLSL `barrier()` alone.
    Barrier,
    /// GLSL `memoryBarrierShared(); barrier();`.
    MemoryBarrierSharedBarrier,
    /// NV assembly `MEMBAR`.
    Membar,
    /// NV assembly `MEMBAR.CTA`.
    MembarCta,
    /// NV assembly `BAR` alone.
    Bar,
    /// NV assembly `MEMBAR.CTA; BAR;`.
    MembarCtaBar,
    /// SPIR-V `OpMemoryBarrier Device AcquireRelease|UniformMemory|WorkgroupMemory`.
    OpMemoryBarrierDevice,
    /// SPIR-V `OpMemoryBarrier Workgroup AcquireRelease|UniformMemory|WorkgroupMemory`.
    OpMemoryBarrierWorkgroup,
    /// SPIR-V `OpControlBarrier Workgroup Workgroup AcquireRelease|WorkgroupMemory` (GLSL's
    /// `barrier()` in ARB_gl_spirv's mapping).
    OpControlBarrier,
    /// SPIR-V `OpControlBarrier Workgroup Workgroup None`: execution only.
    OpControlBarrierNoSemantics,
}

/// The memory scope of a fence: whose observations it orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemScope {
    Workgroup,
    Device,
}

/// What a fence means, from the spec text cited in docs/FUZZING.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effect {
    /// An execution barrier: every invocation of the group reaches it before any goes on.
    pub control: bool,
    /// The memory ordering it gives, if any, and to whom.
    pub memory: Option<MemScope>,
    /// Whether it orders shared variables / buffer variables.
    pub shared: bool,
    pub buffer: bool,
}

impl Fence {
    pub const ALL: [Fence; 15] = [
        Fence::None,
        Fence::MemoryBarrier,
        Fence::MemoryBarrierShared,
        Fence::MemoryBarrierBuffer,
        Fence::GroupMemoryBarrier,
        Fence::Barrier,
        Fence::MemoryBarrierSharedBarrier,
        Fence::Membar,
        Fence::MembarCta,
        Fence::Bar,
        Fence::MembarCtaBar,
        Fence::OpMemoryBarrierDevice,
        Fence::OpMemoryBarrierWorkgroup,
        Fence::OpControlBarrier,
        Fence::OpControlBarrierNoSemantics,
    ];

    /// The name in test names and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Fence::None => "nofence",
            Fence::MemoryBarrier => "memorybarrier",
            Fence::MemoryBarrierShared => "memorybarriershared",
            Fence::MemoryBarrierBuffer => "memorybarrierbuffer",
            Fence::GroupMemoryBarrier => "groupmemorybarrier",
            Fence::Barrier => "barrier",
            Fence::MemoryBarrierSharedBarrier => "memorybarriershared-barrier",
            Fence::Membar => "membar",
            Fence::MembarCta => "membar-cta",
            Fence::Bar => "bar",
            Fence::MembarCtaBar => "membar-cta-bar",
            Fence::OpMemoryBarrierDevice => "opmemorybarrier-device",
            Fence::OpMemoryBarrierWorkgroup => "opmemorybarrier-workgroup",
            Fence::OpControlBarrier => "opcontrolbarrier",
            Fence::OpControlBarrierNoSemantics => "opcontrolbarrier-nosemantics",
        }
    }

    /// The language that writes this fence (None: every language).
    pub fn lang(self) -> Option<Lang> {
        use Fence::*;
        match self {
            None => Option::None,
            MemoryBarrier
            | MemoryBarrierShared
            | MemoryBarrierBuffer
            | GroupMemoryBarrier
            | Barrier
            | MemoryBarrierSharedBarrier => Some(Lang::Glsl),
            Membar | MembarCta | Bar | MembarCtaBar => Some(Lang::Nvasm),
            OpMemoryBarrierDevice
            | OpMemoryBarrierWorkgroup
            | OpControlBarrier
            | OpControlBarrierNoSemantics => Some(Lang::Spirv),
        }
    }

    /// What the fence means. GLSL: ARB_compute_shader's memory control functions (which
    /// variables each waits for; `groupMemoryBarrier()` orders only as seen from the work
    /// group) and section 4.3.7 (`barrier()` orders shared variables); the SPIR-V forms are
    /// ARB_gl_spirv's mapping of those functions; NV: NV_compute_program5's MEMBAR (`.CTA`:
    /// ordered as observed in the work group only) and BAR (execution only).
    pub fn effect(self) -> Effect {
        use Fence::*;
        let (control, memory, shared, buffer) = match self {
            None | Bar | OpControlBarrierNoSemantics => (
                matches!(self, Bar | OpControlBarrierNoSemantics),
                Option::None,
                false,
                false,
            ),
            MemoryBarrier | Membar | OpMemoryBarrierDevice => {
                (false, Some(MemScope::Device), true, true)
            }
            MemoryBarrierShared => (false, Some(MemScope::Device), true, false),
            MemoryBarrierBuffer => (false, Some(MemScope::Device), false, true),
            GroupMemoryBarrier | MembarCta | OpMemoryBarrierWorkgroup => {
                (false, Some(MemScope::Workgroup), true, true)
            }
            Barrier | MemoryBarrierSharedBarrier | OpControlBarrier => {
                (true, Some(MemScope::Workgroup), true, false)
            }
            MembarCtaBar => (true, Some(MemScope::Workgroup), true, true),
        };
        Effect {
            control,
            memory,
            shared,
            buffer,
        }
    }

    /// Whether the fence is tested at `scope`: fences naming only the other kind of
    /// variable are left out, and control barriers run in work-group tests only (they
    /// synchronise nothing across work groups).
    pub fn applies(self, scope: Scope) -> bool {
        let e = self.effect();
        match scope {
            Scope::Workgroup => self != Fence::MemoryBarrierBuffer,
            Scope::Device => !e.control && (e.buffer || e.memory.is_none()),
        }
    }

    /// Whether the fence orders the accesses of a test at `scope` as seen by the test's other
    /// threads (in the same work group at `Workgroup`, in other groups at `Device`).
    pub fn orders(self, scope: Scope) -> bool {
        let e = self.effect();
        match (scope, e.memory) {
            (_, Option::None) => false,
            (Scope::Workgroup, Some(_)) => e.shared,
            (Scope::Device, Some(MemScope::Device)) => e.buffer,
            (Scope::Device, Some(MemScope::Workgroup)) => false,
        }
    }

    /// The fences of `lang` tested at `scope`, starting with no fence.
    pub fn of(lang: Lang, scope: Scope) -> Vec<Fence> {
        Fence::ALL
            .into_iter()
            .filter(|f| f.lang().is_none_or(|l| l == lang) && f.applies(scope))
            .collect()
    }
}

/// One litmus test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Test {
    pub shape: Shape,
    pub scope: Scope,
    pub fence: Fence,
    pub lang: Lang,
}

impl Test {
    /// `mp-workgroup-barrier-glsl`.
    pub fn name(&self) -> String {
        format!(
            "{}-{}-{}-{}",
            self.shape.name(),
            self.scope.name(),
            self.fence.name(),
            self.lang.name()
        )
    }

    /// Every test of `langs`, `shapes` and `scopes`.
    pub fn all(langs: &[Lang], shapes: &[Shape], scopes: &[Scope]) -> Vec<Test> {
        let mut out = Vec::new();
        for &lang in langs {
            for &scope in scopes {
                for fence in Fence::of(lang, scope) {
                    for &shape in shapes {
                        out.push(Test {
                            shape,
                            scope,
                            fence,
                            lang,
                        });
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_have_the_classic_sizes() {
        let sizes: Vec<(usize, usize, usize)> = Shape::ALL
            .iter()
            .map(|s| (s.threads().len(), s.registers(), s.locations()))
            .collect();
        assert_eq!(
            sizes,
            [
                (2, 2, 2),
                (2, 2, 2),
                (2, 2, 2),
                (2, 1, 2),
                (2, 0, 2),
                (2, 2, 1),
                (4, 4, 2)
            ]
        );
    }

    #[test]
    fn fences_apply_where_they_mean_something() {
        let names = |lang, scope| -> Vec<&str> {
            Fence::of(lang, scope).iter().map(|f| f.name()).collect()
        };
        assert_eq!(
            names(Lang::Nvasm, Scope::Device),
            ["nofence", "membar", "membar-cta"]
        );
        assert_eq!(
            names(Lang::Glsl, Scope::Device),
            [
                "nofence",
                "memorybarrier",
                "memorybarrierbuffer",
                "groupmemorybarrier"
            ]
        );
        assert_eq!(Fence::of(Lang::Spirv, Scope::Workgroup).len(), 5);
        // Only device-scope fences order across work groups.
        assert!(Fence::Membar.orders(Scope::Device));
        assert!(!Fence::MembarCta.orders(Scope::Device));
        assert!(Fence::MembarCta.orders(Scope::Workgroup));
        assert!(!Fence::Bar.orders(Scope::Workgroup));
        assert!(!Fence::OpControlBarrierNoSemantics.orders(Scope::Workgroup));
    }
}
