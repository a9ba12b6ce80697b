// The same link flags as junqi-train's (the rpath to libtorch, and
// libtorch_cuda kept with the `cuda` feature), for this crate's tests.
include!("../junqi-train/build.rs");
