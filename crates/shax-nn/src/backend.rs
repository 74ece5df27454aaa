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

/// Makes this thread's floating point flush subnormal numbers to zero (the
/// FTZ and DAZ bits of x86's MXCSR; nothing elsewhere). Training drives many
/// weights towards zero (weight decay, inputs that are rarely set), and
/// arithmetic on subnormals is slow on x86 CPUs: a trained network computed
/// without this ran at a fifth of a fresh one's speed. Results change only in
/// numbers below 1.2e-38. Each thread that runs a network calls it (the
/// evaluator on every call, the trainer before every step).
pub fn flush_denormals() {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::asm;
        const FTZ_DAZ: u32 = (1 << 15) | (1 << 6);
        let mut csr: u32 = 0;
        // SAFETY: reading and writing MXCSR on this thread only changes how it
        // rounds subnormal floats; the bits set are valid (no exception unmasked).
        unsafe {
            asm!("stmxcsr [{}]", in(reg) &raw mut csr, options(nostack, preserves_flags));
            if csr & FTZ_DAZ != FTZ_DAZ {
                csr |= FTZ_DAZ;
                asm!("ldmxcsr [{}]", in(reg) &raw const csr, options(nostack, preserves_flags));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn subnormals_flush_to_zero_on_the_calling_thread_only() {
        use std::hint::black_box;
        let tiny = || black_box(f32::MIN_POSITIVE) * black_box(0.5);
        let subnormal = f32::from_bits(1);
        std::thread::spawn(move || {
            assert!(tiny() > 0.0, "a subnormal result before");
            flush_denormals();
            assert_eq!(tiny(), 0.0, "flushed results");
            assert_eq!(
                black_box(subnormal) * black_box(4.0),
                0.0,
                "subnormal inputs"
            );
            flush_denormals();
            assert_eq!(tiny(), 0.0, "twice is once");
        })
        .join()
        .unwrap();
        std::thread::spawn(move || assert!(tiny() > 0.0, "another thread keeps subnormals"))
            .join()
            .unwrap();
    }
}
