// Link flags for libtorch (see docs/training.md): an rpath to libtorch's
// directory so test and binary executables start without LD_LIBRARY_PATH,
// and with the `cuda` feature, `libtorch_cuda` linked even though no symbol
// of it is referenced (`--as-needed` would drop it and CUDA would silently
// be unavailable).
fn main() {
    if let Some(lib) = std::env::var_os("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.to_string_lossy());
    }
    if std::env::var_os("CARGO_FEATURE_CUDA").is_some() {
        println!("cargo:rustc-link-arg=-Wl,--no-as-needed");
        println!("cargo:rustc-link-arg=-ltorch_cuda");
        println!("cargo:rustc-link-arg=-ltorch");
        println!("cargo:rustc-link-arg=-Wl,--as-needed");
    }
}
