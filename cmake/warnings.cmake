add_library(conch_warnings INTERFACE)
target_compile_options(conch_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>)

option(CONCH_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
if(CONCH_SANITIZE)
  # Every finding stops the test, except null-reference checks, which recover
  # so that cmake/ubsan.supp can silence one inside CAF's own headers
  # (caf/detail/init_fun_factory.hpp binds a reference to an empty argument
  # tuple through a null pointer whenever an actor is spawned without
  # arguments). Any other null finding still halts: `make asan` sets
  # halt_on_error=1.
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined -fsanitize-recover=null)
  add_link_options(-fsanitize=address,undefined)
endif()

option(CONCH_FUZZ "Build the libFuzzer targets of fuzz/ (clang; make fuzz)" OFF)
if(CONCH_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "CONCH_FUZZ needs clang (make fuzz sets CXX=clang++-14)")
  endif()
  # Everything is instrumented for coverage and checked by ASan and UBSan;
  # only the fuzz targets link libFuzzer's main.
  # Null and pointer-overflow findings recover so that cmake/ubsan.supp can
  # silence those inside third-party headers (CAF's, RapidJSON's);
  # scripts/run-fuzz.sh halts on every other one.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined -fsanitize-recover=null,pointer-overflow)
  add_link_options(-fsanitize=address,undefined)
endif()

option(CONCH_TSAN "Build with ThreadSanitizer (make tsan)" OFF)
if(CONCH_TSAN)
  if(CONCH_SANITIZE)
    message(FATAL_ERROR "CONCH_TSAN and CONCH_SANITIZE cannot be combined")
  endif()
  if(NOT CONCH_CAF_ROOT)
    # Debian's libcaf-core is not instrumented: ThreadSanitizer would not see
    # the synchronization of its mailboxes and scheduler and report every
    # message hand-off as a race. scripts/build-tsan-caf.sh builds one that is.
    message(FATAL_ERROR "CONCH_TSAN needs CONCH_CAF_ROOT, a CAF built with -fsanitize=thread "
                        "(scripts/build-tsan-caf.sh)")
  endif()
  # -U__SANITIZE_THREAD__: the other libraries (protobuf, gRPC, abseil) are
  # Debian's, built without the sanitizer, and their headers change class
  # layouts when they see it (protobuf's MapFieldBase grows two counters):
  # code compiled here must agree with the libraries it links. The sanitizer
  # still instruments everything; only those headers' TSan-only extras are off.
  # libstdc++'s own accommodation stays on (_GLIBCXX_TSAN: shared_ptr's
  # release takes no non-atomic fast path the sanitizer cannot follow).
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer -U__SANITIZE_THREAD__
                      -D_GLIBCXX_TSAN=1)
  add_link_options(-fsanitize=thread)
endif()
