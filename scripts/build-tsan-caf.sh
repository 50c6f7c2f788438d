#!/usr/bin/env bash
# Builds CAF's core library with ThreadSanitizer into PREFIX (default
# build-tsan-caf), for `make tsan`.
#
# Debian's libcaf-core is built without -fsanitize=thread, so ThreadSanitizer
# cannot see the synchronization inside it: every message from one actor to
# another (a lock-free mailbox) and every hand-off between scheduler threads
# (the work-stealing queues) would look like a data race. The same version's
# source, from Debian's source package, built here with the sanitizer, makes
# those edges visible, so `make tsan` needs no suppressions for CAF.
#
# The source comes through apt-get with a private package list (the system's
# own Debian sources, as `deb-src`), so the system's apt configuration is left
# as it is.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="$(realpath -m "${1:-build-tsan-caf}")"
jobs="${JOBS:-2}"
if [ -f "$prefix/lib/libcaf_core.so" ] && [ -f "$prefix/include/caf/all.hpp" ]; then
  exit 0
fi

version="$(dpkg-query -W -f='${Version}' libcaf-dev)"  # 0.17.6-2.1+b1
upstream="${version%%-*}"                               # 0.17.6
source_version="${version%%+b*}"                        # 0.17.6-2.1 (no binNMU suffix)
work="$prefix/source"
mkdir -p "$work/apt/lists/partial" "$work/apt/sources.list.d"
: > "$work/apt/sources.list"

# deb-src twins of the system's Debian sources (deb822 and one-line forms).
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && sed 's/^Types: deb$/Types: deb-src/' "$f" > "$work/apt/sources.list.d/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] && sed -n 's/^deb \(.*\)$/deb-src \1/p' "$f" >> "$work/apt/sources.list"
done
apt_opts=(-o "Dir::Etc::SourceList=$work/apt/sources.list"
          -o "Dir::Etc::SourceParts=$work/apt/sources.list.d"
          -o "Dir::State::Lists=$work/apt/lists"
          -o "APT::Sandbox::User=root")

tarball="$work/actor-framework_${upstream}.orig.tar.gz"
if [ ! -f "$tarball" ]; then
  echo "tsan: fetching the source of CAF $source_version"
  apt-get -qq "${apt_opts[@]}" update
  (cd "$work" && apt-get -qq "${apt_opts[@]}" source --tar-only "actor-framework=$source_version")
fi
rm -rf "$work/src" && mkdir -p "$work/src"
tar -xzf "$tarball" -C "$work/src" --strip-components=1

# Only the core library, configured as Debian configures it (the generated
# build_config.hpp must match the headers the project was written against:
# log level QUIET, exceptions on, memory management on).
echo "tsan: building CAF $upstream with -fsanitize=thread into $prefix"
flags="-fsanitize=thread -O1 -g -fno-omit-frame-pointer"
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCAF_LOG_LEVEL=QUIET \
  -DCAF_NO_IO=yes -DCAF_NO_OPENSSL=yes -DCAF_NO_OPENCL=yes -DCAF_NO_PYTHON=yes \
  -DCAF_NO_TOOLS=yes -DCAF_NO_EXAMPLES=yes -DCAF_NO_UNIT_TESTS=yes -DCAF_NO_SUMMARY=yes \
  -DCAF_NO_COMPILER_CHECK=yes -DCMAKE_INSTALL_LIBDIR=lib > "$work/configure.log"
cmake --build "$work/build" -j"$jobs"
cmake --install "$work/build" > /dev/null
test -f "$prefix/lib/libcaf_core.so"
