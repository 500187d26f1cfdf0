//! Which driver libraries a worker process actually loaded (worker side).
//!
//! The renderer string does not tell a system Mesa from one in an install prefix that failed
//! to take over (a wrong `LD_LIBRARY_PATH` silently falls back to the system's), so a
//! driver's identity carries the paths of its libraries as the process mapped them,
//! read from `/proc/self/maps` once the context exists.

/// File-name patterns of the libraries that make up a GL driver: EGL's vendor library, the
/// Gallium megadriver and its DRI loaders, LLVM (llvmpipe's code generator), Vulkan drivers
/// under zink, NVIDIA's EGL and GL cores.
pub(crate) fn is_driver_library(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "libEGL_mesa",
        "libgallium",
        "libLLVM",
        "libvulkan_",
        "libEGL_nvidia",
        "libnvidia-eglcore",
        "libnvidia-glcore",
        "libnvidia-glsi",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p)) || name.contains("_dri.so")
}

/// The driver libraries mapped into this process, each path once, in the order first mapped.
pub fn driver_libraries() -> Vec<String> {
    match std::fs::read_to_string("/proc/self/maps") {
        Ok(maps) => from_maps(&maps),
        Err(_) => Vec::new(),
    }
}

/// The driver libraries named in the text of a `/proc/PID/maps` file.
pub fn from_maps(maps: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in maps.lines() {
        // address perms offset dev inode path: the path is the sixth field, and may hold
        // spaces (rare for libraries), so it is everything after the fifth.
        let Some(path) = line.splitn(6, char::is_whitespace).nth(5).map(str::trim) else {
            continue;
        };
        if !path.starts_with('/') {
            continue;
        }
        let name = path.rsplit('/').next().unwrap_or(path);
        if is_driver_library(name) && !out.iter().any(|p| p == path) {
            out.push(path.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_each_driver_library_once_and_nothing_else() {
        let maps = "\
7f00-7f10 r--p 00000000 08:01 11 /root/mesa-25/usr/lib/x86_64-linux-gnu/libEGL_mesa.so.0.0.0
7f10-7f20 r-xp 00010000 08:01 11 /root/mesa-25/usr/lib/x86_64-linux-gnu/libEGL_mesa.so.0.0.0
7f20-7f30 r-xp 00000000 08:01 12 /root/mesa-25/usr/lib/x86_64-linux-gnu/libgallium-25.0.7-2~bpo12+1.so
7f30-7f40 r-xp 00000000 08:01 13 /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1
7f40-7f50 r-xp 00000000 08:01 14 /usr/lib/x86_64-linux-gnu/libc.so.6
7f50-7f60 r-xp 00000000 08:01 15 /usr/lib/x86_64-linux-gnu/dri/swrast_dri.so
7f60-7f70 rw-p 00000000 00:00 0 
7f70-7f80 rw-p 00000000 00:00 0                          [heap]
";
        assert_eq!(
            from_maps(maps),
            vec![
                "/root/mesa-25/usr/lib/x86_64-linux-gnu/libEGL_mesa.so.0.0.0",
                "/root/mesa-25/usr/lib/x86_64-linux-gnu/libgallium-25.0.7-2~bpo12+1.so",
                "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1",
                "/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so",
            ]
        );
    }
}
