#!/usr/bin/env bash
# Runs Conch's GPU checks on a machine with an NVIDIA GPU and writes the
# report into REPORT_DIR. Run from the checkout's root, beside the bundle
# that `make device-bundle` built (BUNDLE, default build/device-bundle);
# needs only the driver and a Python 3.12 with numpy, pytest and, for the
# GPU tests, cupy (and torch, for its own cases). It installs nothing on
# the machine: the bundle's wheels go into a folder of their own.
#
#   scripts/device-check.sh REPORT_DIR
#
# The report: gpu.txt (nvidia-smi, the driver, Python and its GPU
# packages), NAME.txt and NAME.xml for each C++ CUDA test binary,
# python.txt and python.xml (the Python GPU tests, the DLPack and
# tritonserver._c suites), and summary.txt, a line per suite as it ends.
# Exits non-zero when a suite fails or runs past its time. Where nvidia-smi
# lists a GPU, a test that skips for want of one fails instead
# (CONCH_REQUIRE_GPU=1).
set -uo pipefail
cd "$(dirname "$0")/.."

report=$(realpath -m "${1:?usage: scripts/device-check.sh REPORT_DIR}")
bundle=$(realpath "${BUNDLE:-build/device-bundle}")
python=${PYTHON:-python3}
mkdir -p "$report"
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT

{
  echo "# nvidia-smi"
  nvidia-smi 2>&1 || echo "(no nvidia-smi)"
  echo "# python"
  "$python" -c 'import sys; print(sys.version)'
  "$python" - <<'PY' 2>&1
for name in ("numpy", "cupy", "torch", "cuda.bindings", "grpc", "google.protobuf"):
    try:
        module = __import__(name, fromlist=["_"])
        print(name, getattr(module, "__version__", "?"))
    except Exception as e:  # reported, not fatal
        print(name, "missing:", type(e).__name__, e)
try:
    import cupy
    print("cupy devices:", cupy.cuda.runtime.getDeviceCount())
except Exception as e:
    print("cupy devices: none:", e)
PY
} >"$report/gpu.txt" 2>&1

status=0
summary() { echo "$1" >>"$report/summary.txt"; }
: >"$report/summary.txt"
if nvidia-smi -L >/dev/null 2>&1; then
  export CONCH_REQUIRE_GPU=${CONCH_REQUIRE_GPU:-1}
fi
summary "GPU required: ${CONCH_REQUIRE_GPU:-0}"

# The wheels go into a folder of their own: with pip where there is one,
# else unpacked (a wheel is a zip of what goes into site-packages).
if ! "$python" -m pip install -q --disable-pip-version-check --no-index --no-deps --no-compile \
     --target "$site" "$bundle"/wheels/*.whl >"$report/install.txt" 2>&1; then
  for wheel in "$bundle"/wheels/*.whl; do
    "$python" -m zipfile -e "$wheel" "$site" >>"$report/install.txt" 2>&1 || {
      summary "install: FAILED (install.txt)"
      exit 1
    }
  done
fi
summary "install: $(ls "$bundle"/wheels/*.whl | wc -l) wheels"

for test in "$bundle"/bin/*; do
  name=$(basename "$test")
  LD_LIBRARY_PATH="$bundle/lib" timeout -k 10 180 "$test" \
    --gtest_output="xml:$report/$name.xml" >"$report/$name.txt" 2>&1
  rc=$?
  result=$(grep -E '^\[  (PASSED|FAILED|SKIPPED) *\] [0-9]+ tests?' "$report/$name.txt" \
             | tr -s ' ' | paste -sd';')
  if [ "${CONCH_REQUIRE_GPU:-0}" = 1 ] && grep -q '^\[  SKIPPED \]' "$report/$name.txt"; then
    result="$result; tests skipped on a GPU machine"
    [ $rc -eq 0 ] && rc=1
  fi
  [ $rc -eq 0 ] || status=1
  summary "$name: rc $rc; $result"
done

# python/tests holds the suites and their conftest; the wheels are imported
# from the folder they went into, never from the checkout.
PYTHONPATH="$site" timeout -k 10 480 "$python" -m pytest -p no:cacheprovider -q -rs \
  --junitxml="$report/python.xml" \
  python/tests/test_gpu.py python/tests/test_dlpack.py python/tests/test_triton_bindings.py \
  >"$report/python.txt" 2>&1
rc=$?
[ $rc -eq 0 ] || status=1
summary "python: rc $rc; $(tail -1 "$report/python.txt")"
exit $status
