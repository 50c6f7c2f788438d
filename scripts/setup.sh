#!/usr/bin/env bash
# Installs what a fresh machine lacks: Debian packages (apt-get) and the Python
# packages of requirements.txt into .venv. Safe to run again: it only installs
# what is missing.
#
#   scripts/setup.sh           what building, running and testing need
#   scripts/setup.sh --bench   that, plus the load generators and the reference
#                              server of `make bench` (wrk, nginx-light,
#                              bench/requirements.txt)
#   scripts/setup.sh --fuzz    that, plus clang and libFuzzer for `make fuzz`
set -euo pipefail
cd "$(dirname "$0")/.."

bench=0
fuzz=0
[ "${1:-}" = "--bench" ] && bench=1
[ "${1:-}" = "--fuzz" ] && fuzz=1

debian_packages=(
  cmake g++ make ccache pkg-config
  libcaf-dev libprotobuf-dev protobuf-compiler
  libgrpc++-dev protobuf-compiler-grpc
  rapidjson-dev libuv1-dev node-llhttp zlib1g-dev libre2-dev libtcmalloc-minimal4
  prometheus-cpp-dev
  pybind11-dev python3-dev python3-venv
  libgtest-dev libgmock-dev libbenchmark-dev
)
# Installed without their recommendations: promtool (prometheus) checks the
# metrics exposition in the tests; the server it ships is never started.
lean_packages=(prometheus)
[ "$bench" -eq 1 ] && debian_packages+=(wrk nginx-light)
[ "$fuzz" -eq 1 ] && debian_packages+=(clang-14 libclang-rt-14-dev)

missing_of() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
mapfile -t missing < <(missing_of "${debian_packages[@]}")
mapfile -t missing_lean < <(missing_of "${lean_packages[@]}")
if [ ${#missing[@]} -gt 0 ] || [ ${#missing_lean[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]} ${missing_lean[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  export DEBIAN_FRONTEND=noninteractive
  [ ${#missing[@]} -eq 0 ] || $sudo_cmd apt-get install -y -qq "${missing[@]}"
  [ ${#missing_lean[@]} -eq 0 ] \
    || $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing_lean[@]}"
fi

# The virtual environment is made from Debian's interpreter, and the Python
# extension is always built against that same interpreter.
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  /usr/bin/python3 -m venv .venv
fi
stamp=.venv/.requirements.stamp
if [ ! -f "$stamp" ] || ! cmp -s requirements.txt "$stamp"; then
  echo "setup: installing Python packages into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
  cp requirements.txt "$stamp"
fi

if [ "$bench" -eq 1 ]; then
  bench_stamp=.venv/.bench-requirements.stamp
  if [ ! -f "$bench_stamp" ] || ! cmp -s bench/requirements.txt "$bench_stamp"; then
    echo "setup: installing the benchmark's Python packages into .venv"
    # Optional: where no wheel fits this system, the benchmark reports n/a.
    if .venv/bin/python -m pip install -q --disable-pip-version-check -r bench/requirements.txt \
         2>/dev/null; then
      cp bench/requirements.txt "$bench_stamp"
    else
      echo "setup: no installable wheel of bench/requirements.txt here (perf_analyzer needs" \
           "glibc >= 2.38); make bench goes on without it"
    fi
  fi
fi
