//! The one place that picks Burn's backend.
//!
//! Burn 0.22 chooses the backend at run time through a [`Device`]. On the CPU
//! this crate uses the `flex` backend with its AVX-512 kernels (`x86-v4`, picked
//! at run time, AVX2 otherwise): on the 2-core development machine it beat
//! `ndarray` 2 to 12 times and OpenBLAS too (`docs/BACKENDS.md`). The
//! `wgpu` cargo feature adds a GPU backend.

use std::fmt;
use std::str::FromStr;

use burn::tensor::Device;

/// Where the network runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Burn's `flex` CPU backend (the default).
    #[default]
    Cpu,
    /// Burn's `wgpu` backend on the default adapter (cargo feature `wgpu`).
    #[cfg(feature = "wgpu")]
    Wgpu,
}

/// A backend name that is not known (or not compiled in).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown backend '{0}' (known: {known})", known = Backend::NAMES.join(", "))]
pub struct UnknownBackend(pub String);

impl Backend {
    /// The names [`Backend::from_str`] accepts in this build.
    pub const NAMES: &'static [&'static str] = &[
        "cpu",
        #[cfg(feature = "wgpu")]
        "wgpu",
    ];

    /// The backend's name with what runs it: on the CPU, the SIMD level Burn's
    /// kernels picked at run time on this machine (the network's speed differs
    /// about fourfold between AVX-512 and AVX2 machines of the same core count).
    pub fn describe(self) -> String {
        match self {
            Backend::Cpu => format!("cpu (burn flex, {})", cpu_kernels()),
            #[cfg(feature = "wgpu")]
            Backend::Wgpu => "wgpu (burn wgpu, default adapter)".to_string(),
        }
    }

    /// The backend's name.
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            #[cfg(feature = "wgpu")]
            Backend::Wgpu => "wgpu",
        }
    }

    /// The device for inference.
    pub fn device(self) -> Device {
        match self {
            Backend::Cpu => Device::flex(),
            #[cfg(feature = "wgpu")]
            Backend::Wgpu => Device::wgpu(burn::tensor::DeviceKind::DefaultDevice),
        }
    }

    /// The autodiff device for training.
    pub fn training_device(self) -> Device {
        self.device().autodiff()
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = UnknownBackend;

    fn from_str(s: &str) -> Result<Backend, UnknownBackend> {
        match s {
            "cpu" | "flex" => Ok(Backend::Cpu),
            #[cfg(feature = "wgpu")]
            "wgpu" => Ok(Backend::Wgpu),
            _ => Err(UnknownBackend(s.to_string())),
        }
    }
}

/// The instruction set the `flex` kernels run with here (they pick the
/// widest one at run time).
fn cpu_kernels() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return "x86-v4: AVX-512";
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return "x86-v3: AVX2";
        }
        "x86: no AVX2"
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::env::consts::ARCH
    }
}
