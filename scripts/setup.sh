#!/usr/bin/env bash
# Installs what a fresh machine lacks: Debian packages (apt-get) and the Python
# packages of requirements.txt into .venv. Safe to run again: it only installs
# what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

debian_packages=(
  cmake g++ make ccache pkg-config
  libcaf-dev libprotobuf-dev protobuf-compiler
  libgrpc++-dev protobuf-compiler-grpc
  rapidjson-dev libuv1-dev node-llhttp zlib1g-dev
  prometheus-cpp-dev
  pybind11-dev python3-dev python3-venv
  libgtest-dev libgmock-dev libbenchmark-dev
)

missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
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
