# Finds every third-party dependency. All come from Debian packages
# (scripts/setup.sh installs them); nothing is downloaded at build time.

find_package(Threads REQUIRED)

# CAF 0.17 ships neither a CMake config nor a pkg-config file: ConchCAF.cmake
# (installed with the package too) finds it. CONCH_CAF_ROOT names another
# build of it (make tsan's, instrumented).
set(CONCH_CAF_ROOT "" CACHE PATH "Prefix of the CAF to build against; empty: the system's")
include(ConchCAF)
if(NOT TARGET CAF::core)
  message(FATAL_ERROR "conch: CAF (libcaf-dev) not found${CONCH_CAF_ROOT_HINT}")
endif()

find_package(Protobuf REQUIRED)
find_package(prometheus-cpp CONFIG REQUIRED)
find_package(RapidJSON CONFIG REQUIRED)
add_library(conch_rapidjson INTERFACE)
target_include_directories(conch_rapidjson SYSTEM INTERFACE ${RAPIDJSON_INCLUDE_DIRS})
target_compile_definitions(conch_rapidjson INTERFACE RAPIDJSON_HAS_STDSTRING=1)
conch_export(conch_rapidjson)

find_package(GTest CONFIG REQUIRED)
include(GoogleTest)
find_package(benchmark CONFIG REQUIRED)

option(CONCH_ENABLE_CUDA "Build the CUDA memory support when the toolkit is found" ON)
if(CONCH_ENABLE_CUDA)
  find_package(CUDAToolkit QUIET)
endif()

# The HTTP transport: libuv loops, zlib for Content-Encoding, and llhttp.
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBUV REQUIRED IMPORTED_TARGET libuv)
find_package(ZLIB REQUIRED)

# RE2 (libre2-dev, pkg-config only): the regular expressions operators
# configure are matched against client text in linear time.
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)

# Debian's node-llhttp ships llhttp's generated C sources and header, not a
# library: build them here, as C (the generated code is not valid C++).
find_path(LLHTTP_INCLUDE_DIR llhttp.h PATHS /usr/share/include/llhttp REQUIRED)
find_path(LLHTTP_SOURCE_DIR llhttp.c PATHS /usr/share/llhttp REQUIRED)
# Installed, its header is in include/conch/llhttp (cmake/install.cmake).
add_library(conch_llhttp STATIC
  ${LLHTTP_SOURCE_DIR}/api.c ${LLHTTP_SOURCE_DIR}/http.c ${LLHTTP_SOURCE_DIR}/llhttp.c)
set_target_properties(conch_llhttp PROPERTIES LINKER_LANGUAGE C POSITION_INDEPENDENT_CODE ON)
target_include_directories(conch_llhttp SYSTEM PUBLIC $<BUILD_INTERFACE:${LLHTTP_INCLUDE_DIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/conch/llhttp>)
conch_export(conch_llhttp)

# The KServe gRPC frontend: gRPC's own CMake config (libgrpc-dev) provides
# gRPC::grpc++ and gRPC::grpc_cpp_plugin.
find_package(gRPC CONFIG REQUIRED)
