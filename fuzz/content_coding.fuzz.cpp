// gzip and deflate request bodies: any bytes decode or fail, within the
// size bound.
#include <string>

#include "conch/transports/http/content_coding.hpp"
#include "conch/transports/http/owned_bytes.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace conch::transports::http;
  conch::fuzz::fuzz_input in{data, size};
  auto coding = in.byte() & 1 ? content_coding::gzip : content_coding::deflate;
  constexpr size_t bound = 1 << 20;
  auto decoded = decode_body(coding, owned_bytes(std::string{in.rest()}), bound);
  if (decoded && decoded->size() > bound)
    __builtin_trap();
  return 0;
}
