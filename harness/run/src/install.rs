//! A Mesa install a backend runs (`llvmpipe@PREFIX`, `vk:lavapipe@PREFIX`): below both the
//! GL drivers ([`crate::drivers`]) and the Vulkan ones ([`crate::vulkan`]).

use conform_glrunner::install::MesaInstall;
use conform_worker::Launch;

/// A Mesa install a backend runs (`llvmpipe@PREFIX`): the install and how its workers start
/// (its environment; a root's own dynamic loader).
#[derive(Clone, Debug)]
pub struct Install {
    pub mesa: MesaInstall,
    pub launch: Launch,
}

impl Install {
    pub fn open(prefix: &str) -> Result<Install, String> {
        let mesa = MesaInstall::open(prefix)?;
        let launch = mesa.launch()?;
        Ok(Install { mesa, launch })
    }
}
