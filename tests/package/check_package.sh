#!/usr/bin/env bash
# check_package.sh <build dir> <source dir> <scratch dir>
# The C++ package as a user gets it: installs the build (component devel)
# into a prefix, moves the prefix (it must be relocatable), then builds
# docs/examples as an outside project against it, with find_package(Conch)
# and with pkg-config, and runs the programs on the example repository.
set -euo pipefail
build=$1
source=$2
scratch=$3
repository=$source/python/examples/example_model_repository

rm -rf "$scratch"
mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/staging" --component devel > "$scratch/install.log"
mv "$scratch/staging" "$scratch/prefix"
prefix=$scratch/prefix

# Nothing installed may lead back into the checkout or the build folder.
if grep -rIlF -e "$source" -e "$build" "$prefix/lib/cmake" "$prefix/lib/pkgconfig"; then
  echo "FAILED: the files above refer to $source or $build"
  exit 1
fi

# Every header an installed header includes by a quoted name is installed.
missing=0
while IFS=: read -r file included; do
  if [[ ! -e $prefix/include/$included && ! -e $prefix/include/conch/proto/$included
        && ! -e $prefix/include/conch/llhttp/$included ]]; then
    echo "FAILED: ${file#"$prefix"/} includes $included, which is not installed"
    missing=1
  fi
done < <(grep -rHo '^#include "[^"]*"' "$prefix/include" | sed 's/#include "\(.*\)"$/\1/')
[[ $missing == 0 ]]

launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$source/docs/examples" -B "$scratch/examples" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "${launcher[@]}" \
  > "$scratch/configure.log" || { cat "$scratch/configure.log"; exit 1; }
found=$(sed -n 's/^Conch_DIR:PATH=//p' "$scratch/examples/CMakeCache.txt")
if [[ $found != "$prefix/lib/cmake/Conch" ]]; then
  echo "FAILED: find_package(Conch) found $found, not the installed package"
  exit 1
fi
cmake --build "$scratch/examples" -j2

"$scratch/examples/conch-demo" "$repository" | tee "$scratch/demo.log"
grep -q "OUTPUT0 INT32\[1,16\]: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16" "$scratch/demo.log"
"$scratch/examples/conch-embed-example" "$repository"
bash "$source/tests/package/check_serve_kserve.sh" "$scratch/examples/conch-serve-kserve" \
  "$repository"

# pkg-config: one command line, no CMake.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
version=$(pkg-config --modversion conch)
[[ $version == "$(sed -n 's/^project(conch VERSION \([0-9.]*\).*/\1/p' "$source/CMakeLists.txt")" ]]
# shellcheck disable=SC2046
${CXX:-c++} -O1 -o "$scratch/conch-demo-pkg-config" "$source/docs/examples/conch_demo.cpp" \
  $(pkg-config --cflags --libs conch)
"$scratch/conch-demo-pkg-config" "$repository" > "$scratch/demo-pkg-config.log"
grep -q "OUTPUT0 INT32\[1,16\]: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16" \
  "$scratch/demo-pkg-config.log"
# shellcheck disable=SC2046
${CXX:-c++} -O1 -o "$scratch/conch-serve-kserve-pkg-config" \
  "$source/docs/examples/serve_kserve.cpp" $(pkg-config --cflags --libs conch)
bash "$source/tests/package/check_serve_kserve.sh" "$scratch/conch-serve-kserve-pkg-config" \
  "$repository"
echo "the installed package $version builds and runs the examples"
rm -rf "$prefix" "$scratch/examples"
