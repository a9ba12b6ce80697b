# The image for running junqi on a Ray cluster (docs/distributed.md): Ray
# 2.60.0 on Python 3.11, the `junqi` binary on PATH and the `junqi-ray`
# driver installed. Head and worker nodes all run this image.
#
#   docker build -t junqi-ray:latest .
#   docker run --rm junqi-ray:latest junqi --version
#
# The binary is built without libtorch (`--no-default-features`): rules,
# self-play, arena and studies, with net bots on junqi's own CPU forward pass;
# no `junqi train`. The build context includes .git when present, so the
# binary records the commit in every game's code_version (without it, just the
# crate version); parts are merged only when their code versions agree, so
# every node must run the same image.

ARG RAY_IMAGE=rayproject/ray:2.60.0-py311

# --- build: a release junqi -------------------------------------------------
# Debian 12 (glibc 2.36), but the binary asks for at most GLIBC_2.34, which the
# Ubuntu 22.04 base of the Ray image (glibc 2.35) provides; the runtime stage
# runs it once to make sure.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p junqi --no-default-features \
    && install -D -m 0755 target/release/junqi /out/junqi

# --- runtime: the Ray image plus junqi and the driver -------------------------
FROM ${RAY_IMAGE}
COPY --from=build /out/junqi /usr/local/bin/junqi
# Rules presets, variants and the example nets, for --rules/--variants/--bot
# paths relative to /opt/junqi (the working directory of tasks is not this
# one: pass absolute paths, e.g. /opt/junqi/configs/variants/x.toml).
COPY configs /opt/junqi/configs
COPY data/nets /opt/junqi/data/nets
COPY --chown=ray:users scripts/ray /home/ray/junqi-ray-src
# ray[default] is already there at the pinned version; this adds pyarrow and
# the junqi-ray command.
RUN pip install --no-cache-dir /home/ray/junqi-ray-src \
    && junqi --version \
    && junqi-ray --help > /dev/null
ENV JUNQI_BIN=/usr/local/bin/junqi
