# The C++ package: `cmake --install <build> --prefix <dir>` (make install)
# lays out
#   include/conch/...                 every header of runtime/, services/, actors/,
#                                     transports/
#   include/conch/proto/*.pb.h        the generated protocol headers
#   include/conch/llhttp/llhttp.h     the HTTP parser the transport compiles in
#   lib/libconch_*.a                  the libraries conch_export() named
#   lib/cmake/Conch/                  ConchConfig.cmake: find_package(Conch)
#   lib/pkgconfig/conch.pc            the same for pkg-config
# The build tree exports the same targets (build/ConchConfig.cmake), so a
# project can also build against a checkout's build folder. Everything is in
# the `devel` component; the Python wheel installs only `python`.

include(CMakePackageConfigHelpers)

get_property(conch_exported GLOBAL PROPERTY CONCH_EXPORTED_TARGETS)
set(conch_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Conch)

install(TARGETS ${conch_exported} EXPORT ConchTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel)
install(EXPORT ConchTargets NAMESPACE Conch:: DESTINATION ${conch_cmake_dir}
  COMPONENT devel)
export(EXPORT ConchTargets NAMESPACE Conch:: FILE ${PROJECT_BINARY_DIR}/ConchTargets.cmake)

conch_installed_headers(conch_headers)
foreach(entry IN LISTS conch_headers)
  string(REPLACE "|" ";" entry ${entry})
  list(GET entry 0 root)
  list(GET entry 1 header)
  get_filename_component(folder ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${root}/${header}
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${folder} COMPONENT devel)
endforeach()
foreach(proto IN ITEMS model_config grpc_service health otlp_trace)
  list(APPEND conch_proto_headers ${PROJECT_BINARY_DIR}/proto/${proto}.pb.h)
endforeach()
list(APPEND conch_proto_headers
  ${PROJECT_BINARY_DIR}/proto/grpc_service.grpc.pb.h ${PROJECT_BINARY_DIR}/proto/health.grpc.pb.h)
install(FILES ${conch_proto_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/conch/proto
  COMPONENT devel)
install(FILES ${LLHTTP_INCLUDE_DIR}/llhttp.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/conch/llhttp
  COMPONENT devel)

# ConchConfig.cmake finds the same dependencies the build did.
if(TARGET conch_cuda)
  set(CONCH_WITH_CUDA ON)
else()
  set(CONCH_WITH_CUDA OFF)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ConchConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ConchConfig.cmake INSTALL_DESTINATION ${conch_cmake_dir}
  NO_SET_AND_CHECK_MACRO NO_CHECK_REQUIRED_COMPONENTS_MACRO)
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ConchConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
configure_file(${PROJECT_SOURCE_DIR}/cmake/ConchCAF.cmake ${PROJECT_BINARY_DIR}/ConchCAF.cmake
  COPYONLY)
install(FILES ${PROJECT_BINARY_DIR}/ConchConfig.cmake ${PROJECT_BINARY_DIR}/ConchConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/ConchCAF.cmake
  DESTINATION ${conch_cmake_dir} COMPONENT devel)

# conch.pc: static libraries must be listed before the ones they use, so the
# -l flags follow a depth-first order of the link graph, users first.
function(conch_link_visit target)
  get_property(seen GLOBAL PROPERTY conch_link_seen)
  if(target IN_LIST seen)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY conch_link_seen ${target})
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(deps ${target} INTERFACE_LINK_LIBRARIES)
  else()
    get_target_property(deps ${target} LINK_LIBRARIES)
  endif()
  foreach(dep IN LISTS deps)
    if(dep MATCHES "^conch_" AND TARGET ${dep})
      conch_link_visit(${dep})
    endif()
  endforeach()
  if(type STREQUAL "STATIC_LIBRARY")
    set_property(GLOBAL APPEND PROPERTY conch_link_order ${target})
  endif()
endfunction()
function(conch_link_order out)
  set_property(GLOBAL PROPERTY conch_link_seen "")
  set_property(GLOBAL PROPERTY conch_link_order "")
  foreach(target IN LISTS ARGN)
    conch_link_visit(${target})
  endforeach()
  get_property(order GLOBAL PROPERTY conch_link_order)
  list(REVERSE order)
  set(${out} ${order} PARENT_SCOPE)
endfunction()

conch_link_order(conch_pc_order ${conch_exported})
set(CONCH_PC_LIBS "")
foreach(target IN LISTS conch_pc_order)
  string(APPEND CONCH_PC_LIBS " -l${target}")
endforeach()
# CAF has no .pc file of its own; CUDA's runtime is linked statically.
set(CONCH_PC_CFLAGS "-I\${includedir}/conch/proto -I\${includedir}/conch/llhttp")
set(CONCH_PC_DEP_LIBS "")
get_filename_component(conch_caf_libdir ${CAF_CORE_LIBRARY} DIRECTORY)
if(NOT CAF_INCLUDE_DIR IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
  string(APPEND CONCH_PC_CFLAGS " -I${CAF_INCLUDE_DIR}")
endif()
if(NOT conch_caf_libdir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
  string(APPEND CONCH_PC_DEP_LIBS " -L${conch_caf_libdir}")
endif()
string(APPEND CONCH_PC_DEP_LIBS " -lcaf_core")
if(CONCH_WITH_CUDA)
  get_target_property(conch_cudart CUDA::cudart_static IMPORTED_LOCATION)
  list(JOIN CUDAToolkit_INCLUDE_DIRS " -I" conch_cuda_includes)
  string(APPEND CONCH_PC_CFLAGS " -DCONCH_HAVE_CUDA=1 -I${conch_cuda_includes}")
  string(APPEND CONCH_PC_DEP_LIBS " ${conch_cudart} -lrt")
endif()
string(APPEND CONCH_PC_DEP_LIBS " -ldl")
# The prefix, from where conch.pc lies (the library folder may be deeper
# than lib/, as Debian's lib/<triplet> is).
file(RELATIVE_PATH CONCH_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/conch.pc.in ${PROJECT_BINARY_DIR}/conch.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/conch.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  COMPONENT devel)
