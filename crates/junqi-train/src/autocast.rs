//! libtorch's autocast in bf16 or fp16, on the CPU or a GPU: bf16 training
//! (`Trainer`) and the reduced-precision inference backend (`TorchBackend`).
//!
//! `tch::autocast` (tch 0.24) switches libtorch's device-less autocast
//! flag, which libtorch 2.x reads as CUDA's, so it cannot reach the CPU.
//! libtorch's own per-device functions can: they are called here by
//! their C++ names in `libtorch_cpu` (torch-sys links it). Each takes a
//! `c10::DeviceType` and a `c10::ScalarType`, both `int8_t` enums.
use std::os::raw::c_int;

extern "C" {
    #[link_name = "_ZN2at8autocast20set_autocast_enabledEN3c1010DeviceTypeEb"]
    fn set_autocast_enabled(device: i8, enabled: bool);
    #[link_name = "_ZN2at8autocast19is_autocast_enabledEN3c1010DeviceTypeE"]
    fn is_autocast_enabled(device: i8) -> bool;
    #[link_name = "_ZN2at8autocast18set_autocast_dtypeEN3c1010DeviceTypeENS1_10ScalarTypeE"]
    fn set_autocast_dtype(device: i8, dtype: i8);
    #[link_name = "_ZN2at8autocast18get_autocast_dtypeEN3c1010DeviceTypeE"]
    fn get_autocast_dtype(device: i8) -> i8;
    #[link_name = "_ZN2at8autocast17increment_nestingEv"]
    fn increment_nesting() -> c_int;
    #[link_name = "_ZN2at8autocast17decrement_nestingEv"]
    fn decrement_nesting() -> c_int;
    #[link_name = "_ZN2at8autocast11clear_cacheEv"]
    fn clear_cache();
}

/// `c10::DeviceType::CPU`, `CUDA`.
const CPU: i8 = 0;
const CUDA: i8 = 1;
/// `c10::ScalarType::Half`, `BFloat16`.
const HALF: i8 = 5;
const BFLOAT16: i8 = 15;

/// Autocast to a reduced precision on one device (this thread's) while it
/// lives; the previous state comes back when it drops.
pub struct Autocast {
    device: i8,
    was_enabled: bool,
    was_dtype: i8,
}

impl Autocast {
    /// Autocast to bf16.
    pub fn bf16(device: tch::Device) -> Autocast {
        Autocast::on(device, BFLOAT16)
    }

    /// Autocast to fp16 (IEEE half).
    pub fn fp16(device: tch::Device) -> Autocast {
        Autocast::on(device, HALF)
    }

    fn on(device: tch::Device, dtype: i8) -> Autocast {
        let device = if device.is_cuda() { CUDA } else { CPU };
        // SAFETY: libtorch's thread-local autocast state; none of these throw.
        unsafe {
            let guard =
                Autocast { device, was_enabled: is_autocast_enabled(device), was_dtype: get_autocast_dtype(device) };
            set_autocast_dtype(device, dtype);
            set_autocast_enabled(device, true);
            increment_nesting();
            guard
        }
    }

    /// Whether autocast is on for the CPU (for tests).
    #[cfg(test)]
    pub fn cpu_enabled() -> bool {
        // SAFETY: reads libtorch's thread-local autocast state.
        unsafe { is_autocast_enabled(CPU) }
    }
}

impl Drop for Autocast {
    fn drop(&mut self) {
        // SAFETY: as in `on`; the cache holds the weights' reduced copies.
        unsafe {
            if decrement_nesting() == 0 {
                clear_cache();
            }
            set_autocast_enabled(self.device, self.was_enabled);
            set_autocast_dtype(self.device, self.was_dtype);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Autocast;
    use tch::{Device, Kind, Tensor};

    #[test]
    fn cpu_autocast_runs_matrix_products_in_the_kind_and_switches_back_off() {
        let a = Tensor::ones([4, 4], (Kind::Float, Device::Cpu));
        assert!(!Autocast::cpu_enabled());
        for (on, kind) in [(Autocast::bf16 as fn(Device) -> Autocast, Kind::BFloat16), (Autocast::fp16, Kind::Half)] {
            {
                let _on = on(Device::Cpu);
                assert!(Autocast::cpu_enabled());
                assert_eq!(a.matmul(&a).kind(), kind);
                // Elementwise operations keep their inputs' precision.
                assert_eq!((&a + 1.0).kind(), Kind::Float);
            }
            assert!(!Autocast::cpu_enabled());
            assert_eq!(a.matmul(&a).kind(), Kind::Float);
        }
    }
}
