#!/usr/bin/env bash
# Make `import torch` (CPU) work from the libtorch that scripts/setup.sh puts
# in .deps/libtorch, for `junqi.torch` and its tests. Idempotent: does nothing
# when torch already imports.
#
#   .deps/torch-python  the shared libraries `torch._C` links against that the
#                       libtorch install leaves out (cuDNN, cuBLAS, cuFFT,
#                       cuRAND, cuSPARSE(+nvJitLink), cuSPARSELt, cuFile,
#                       NCCL, NVSHMEM: about 1.7 GB download, 2.2 GB on disk,
#                       about 20 s here) and torch's pure-Python dependencies,
#                       all pinned to what `torch==2.11.0` requires. Not
#                       installed: triton, nvrtc, cusolver, cuda-bindings
#                       (loaded lazily, only for GPU work or torch.compile).
#   .deps/libtorch/nvidia/...  symbolic links into .deps/torch-python/nvidia,
#                       where libtorch_cuda.so's RPATH ($ORIGIN/../../nvidia/…)
#                       looks for them, so no LD_LIBRARY_PATH is needed.
#
# Then: PYTHONPATH=.deps/libtorch:.deps/torch-python (printed at the end; put
# them before .deps/python, whose setuptools is newer than torch allows).
# The torch wheel itself is not downloaded again. No GPU is needed or used.
set -euo pipefail
cd "$(dirname "$0")/.."

libtorch=.deps/libtorch
target=.deps/torch-python
torch_path="$PWD/$libtorch:$PWD/$target"

if ! command -v python3 >/dev/null 2>&1; then
    echo "error: python3 not found" >&2
    exit 2
fi
if [ ! -f "$libtorch/torch/lib/libtorch_cuda.so" ]; then
    echo "error: no libtorch in $libtorch: run scripts/setup.sh first" >&2
    exit 2
fi

importable() {
    PYTHONPATH="$torch_path" python3 -c "import torch; torch.ones(1) + 1" >/dev/null 2>&1
}

# The links from where libtorch's RPATH looks into $target (re-made every
# run: setup.sh may have reinstalled $libtorch). Existing files are kept.
link_libs() {
    local d f
    for d in cudnn nccl nvshmem cusparselt; do
        [ -e "$libtorch/nvidia/$d" ] || ln -sfn "../../torch-python/nvidia/$d" "$libtorch/nvidia/$d"
    done
    mkdir -p "$libtorch/nvidia/cu13/lib"
    for f in "$target"/nvidia/cu13/lib/*.so*; do
        f=$(basename "$f")
        [ -e "$libtorch/nvidia/cu13/lib/$f" ] ||
            ln -sfn "../../../../torch-python/nvidia/cu13/lib/$f" "$libtorch/nvidia/cu13/lib/$f"
    done
}

if [ -d "$target/nvidia/cudnn" ]; then
    link_libs
fi
if importable; then
    echo "torch (Python): already importable with PYTHONPATH=$torch_path"
    exit 0
fi

echo "installing torch's runtime libraries and Python dependencies into $target (about 1.7 GB download)"
start=$SECONDS
rm -rf "$target" "$target.tmp"
if ! PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-compile \
    --no-cache-dir --no-deps --target "$target.tmp" \
    nvidia-cudnn-cu13==9.19.0.56 nvidia-cusparselt-cu13==0.8.0 nvidia-nccl-cu13==2.28.9 \
    nvidia-nvshmem-cu13==3.4.5 nvidia-cublas==13.1.0.3 nvidia-cufft==12.0.0.61 nvidia-cufile==1.15.1.6 \
    nvidia-curand==10.4.0.35 nvidia-cusparse==12.6.3.3 nvidia-nvjitlink==13.0.88 \
    filelock==4.3.1 typing-extensions==4.16.0 sympy==1.14.0 mpmath==1.3.0 networkx==3.6.1 \
    jinja2==3.1.6 markupsafe==3.0.4 fsspec==2026.9.0 setuptools==81.0.0; then
    rm -rf "$target.tmp"
    echo "error: could not install torch's dependencies into $target (pip needs access to PyPI)" >&2
    exit 2
fi
mv "$target.tmp" "$target"
link_libs
if ! importable; then
    echo "error: torch still does not import with PYTHONPATH=$torch_path:" >&2
    PYTHONPATH="$torch_path" python3 -c "import torch" >&2 || true
    exit 2
fi
echo "torch (Python): installed in $((SECONDS - start)) s; use PYTHONPATH=$torch_path"
