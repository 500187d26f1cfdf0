//! A Mesa install a backend runs (`llvmpipe@PREFIX`, `vk:lavapipe@PREFIX`): below both the
//! GL drivers ([`crate::drivers`]) and the Vulkan ones ([`crate::vulkan`]).

use conform_glrunner::install::MesaInstall;
use std::ffi::OsString;

/// A Mesa install a backend runs (`llvmpipe@PREFIX`): the install and the environment its
/// workers start with.
#[derive(Clone, Debug)]
pub struct Install {
    pub mesa: MesaInstall,
    pub env: Vec<(OsString, OsString)>,
}

impl Install {
    pub fn open(prefix: &str) -> Result<Install, String> {
        let mesa = MesaInstall::open(prefix)?;
        let env = mesa.environment()?;
        Ok(Install { mesa, env })
    }
}
