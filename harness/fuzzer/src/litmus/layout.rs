//! Where a litmus test's instances run: work group size and count, and the table that gives
//! every invocation of a dispatch its instance and thread (its *role*), shuffled anew for each
//! dispatch as the GPU litmus literature does (GPUHarbor, MC Mutants): threads of one instance
//! land on random lanes of one work group (workgroup scope) or in random work groups (device
//! scope), next to memory-stress invocations when asked for.

use super::shape::{Scope, Test};
use conform_case::values::SplitMix64;

/// Role-table values one case may hold: the loader refuses a case of more than 262144 values
/// (cases/README.md, Limits), so the dispatches of an iteration are split into cases below it.
pub const MAX_ROLE_VALUES: u32 = 200_000;

/// The low byte of a role code of an invocation that runs no test thread.
pub const ROLE_IDLE: u32 = 0xFE;
/// The low byte of a role code of a memory-stress invocation.
pub const ROLE_STRESS: u32 = 0xFF;
/// Rounds of loads and stores a stress invocation runs.
pub const STRESS_ROUNDS: u32 = 16;
/// Words of the storage buffer device-scope stress invocations hammer.
pub const STRESS_WORDS: u32 = 256;

/// What the user asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Instances per dispatch.
    pub instances: u32,
    /// Work group size.
    pub group_size: u32,
    /// Memory-stress invocations per work group.
    pub stress: u32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            instances: 256,
            group_size: 64,
            stress: 0,
        }
    }
}

/// A test's placement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub test: Test,
    pub params: Params,
    /// Threads per instance.
    pub threads: u32,
    /// Work groups per dispatch.
    pub groups: u32,
    /// Instances per work group (workgroup scope), or test slots per group (device scope).
    pub per_group: u32,
}

impl Layout {
    pub fn new(test: Test, params: Params) -> Result<Layout, String> {
        let threads = test.shape.threads().len() as u32;
        let Params {
            instances,
            group_size,
            stress,
        } = params;
        if !(1..=1024).contains(&group_size) {
            return Err(format!("group size {group_size}: 1 to 1024"));
        }
        if instances == 0 || instances > 1 << 16 {
            return Err(format!("{instances} instances: 1 to 65536"));
        }
        let slots = group_size.saturating_sub(stress);
        let per_group = match test.scope {
            Scope::Workgroup => slots / threads,
            Scope::Device => slots,
        };
        if per_group == 0 {
            return Err(format!(
                "a work group of {group_size} with {stress} stress invocations has no room for a {}-thread instance",
                threads
            ));
        }
        let groups = match test.scope {
            Scope::Workgroup => instances.div_ceil(per_group),
            Scope::Device => (instances * threads).div_ceil(per_group),
        };
        let layout = Layout {
            test,
            params,
            threads,
            groups,
            per_group,
        };
        if layout.invocations() > MAX_ROLE_VALUES {
            return Err(format!(
                "{} invocations per dispatch: at most {} (fewer instances, or less stress)",
                layout.invocations(),
                MAX_ROLE_VALUES
            ));
        }
        Ok(layout)
    }

    /// Invocations of one dispatch.
    pub fn invocations(&self) -> u32 {
        self.groups * self.params.group_size
    }

    /// Elements of the result buffer: one outcome tuple per instance.
    pub fn out_words(&self) -> u32 {
        self.params.instances * self.test.shape.width() as u32
    }

    /// The role code of every invocation (`instance << 8 | thread`, or [`ROLE_IDLE`],
    /// [`ROLE_STRESS`]) for one dispatch, shuffled by `rng`.
    pub fn roles(&self, rng: &mut SplitMix64) -> Vec<u32> {
        let w = self.params.group_size as usize;
        let stress = self.params.stress as usize;
        let mut out = Vec::with_capacity(self.invocations() as usize);
        let code = |i: u32, t: u32| (i << 8) | t;
        match self.test.scope {
            Scope::Workgroup => {
                for g in 0..self.groups {
                    let mut group: Vec<u32> = Vec::with_capacity(w);
                    for k in 0..self.per_group {
                        let i = g * self.per_group + k;
                        if i < self.params.instances {
                            group.extend((0..self.threads).map(|t| code(i, t)));
                        }
                    }
                    group.extend(std::iter::repeat_n(ROLE_STRESS, stress));
                    group.resize(w, ROLE_IDLE);
                    shuffle(&mut group, rng);
                    out.extend(group);
                }
            }
            Scope::Device => {
                let mut threads: Vec<u32> = (0..self.params.instances)
                    .flat_map(|i| (0..self.threads).map(move |t| code(i, t)))
                    .collect();
                threads.resize((self.groups * self.per_group) as usize, ROLE_IDLE);
                shuffle(&mut threads, rng);
                for group in threads.chunks(self.per_group as usize) {
                    let mut g = group.to_vec();
                    g.extend(std::iter::repeat_n(ROLE_STRESS, stress));
                    shuffle(&mut g, rng);
                    out.extend(g);
                }
            }
        }
        out
    }
}

/// Fisher–Yates.
fn shuffle(v: &mut [u32], rng: &mut SplitMix64) {
    for i in (1..v.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::litmus::shape::{Fence, Lang, Shape};

    fn layout(shape: Shape, scope: Scope, params: Params) -> Layout {
        let test = Test {
            shape,
            scope,
            fence: Fence::None,
            lang: Lang::Glsl,
        };
        Layout::new(test, params).unwrap()
    }

    #[test]
    fn every_thread_of_every_instance_runs_once_and_workgroup_instances_stay_in_one_group() {
        let params = Params {
            instances: 50,
            group_size: 16,
            stress: 3,
        };
        for scope in Scope::ALL {
            let l = layout(Shape::Iriw, scope, params);
            let roles = l.roles(&mut SplitMix64::new(1));
            assert_eq!(roles.len() as u32, l.invocations());
            let mut seen: Vec<u32> = roles.iter().copied().filter(|&c| c & 0xFF < 0xFE).collect();
            seen.sort_unstable();
            let want: Vec<u32> = (0..50)
                .flat_map(|i| (0..4).map(move |t| i << 8 | t))
                .collect();
            assert_eq!(seen, want, "{scope:?}");
            for group in roles.chunks(16) {
                assert_eq!(group.iter().filter(|&&c| c == ROLE_STRESS).count(), 3);
                if scope == Scope::Workgroup {
                    for &c in group.iter().filter(|&&c| c & 0xFF < 0xFE) {
                        let same = group.iter().filter(|&&d| d >> 8 == c >> 8 && d & 0xFF < 4);
                        assert_eq!(same.count(), 4, "instance {} split", c >> 8);
                    }
                }
            }
        }
    }

    #[test]
    fn device_scope_spreads_an_instance_over_groups() {
        let l = layout(Shape::Mp, Scope::Device, Params::default());
        let roles = l.roles(&mut SplitMix64::new(7));
        let group_of = |code: u32| roles.iter().position(|&c| c == code).unwrap() / 64;
        let split = (0..256).filter(|&i| group_of(i << 8) != group_of(i << 8 | 1));
        assert!(split.count() > 128);
    }
}
