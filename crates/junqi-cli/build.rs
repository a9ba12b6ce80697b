// The same link flags as junqi-train's (the rpath to libtorch, and
// libtorch_cuda kept with the `cuda` feature), for the `junqi` binary.
include!("../junqi-train/build.rs");
