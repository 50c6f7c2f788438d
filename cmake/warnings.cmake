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
