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
# packages), cpp.txt and cpp.xml (the C++ CUDA tests), python.txt and
# python.xml (the Python GPU tests, the DLPack and tritonserver._c suites),
# and summary.txt, one line per suite. Exits non-zero when a suite fails.
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

if ! "$python" -m pip install -q --disable-pip-version-check --no-index --no-deps --no-compile \
     --target "$site" "$bundle"/wheels/*.whl >"$report/install.txt" 2>&1; then
  summary "install: FAILED (install.txt)"
  exit 1
fi
summary "install: $(ls "$bundle"/wheels/*.whl | wc -l) wheels"

for test in "$bundle"/bin/*; do
  name=$(basename "$test")
  LD_LIBRARY_PATH="$bundle/lib" "$test" --gtest_output="xml:$report/$name.xml" \
    >"$report/$name.txt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  result=$(grep -E '^\[  (PASSED|FAILED|SKIPPED) *\] [0-9]+ tests?' "$report/$name.txt" \
             | tr -s ' ' | paste -sd';')
  summary "$name: rc $rc; $result"
done

# python/tests holds the suites and their conftest; the wheels are imported
# from the folder they went into, never from the checkout.
PYTHONPATH="$site" "$python" -m pytest -p no:cacheprovider -q -rs \
  --junitxml="$report/python.xml" \
  python/tests/test_gpu.py python/tests/test_dlpack.py python/tests/test_triton_bindings.py \
  >"$report/python.txt" 2>&1
rc=$?
[ $rc -eq 0 ] || status=1
summary "python: rc $rc; $(tail -1 "$report/python.txt")"
exit $status
