// The KServe HTTP infer request decoder: the JSON form and the binary
// tensor extension (Inference-Header-Content-Length), from any body; a body
// starting with '!' is a depth bomb (json_bomb.hpp).
#include <string>

#include "conch/transports/http/kserve/codec/decode_infer_request.hpp"
#include "conch/transports/http/owned_bytes.hpp"
#include "fuzz_input.hpp"
#include "json_bomb.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace conch::transports::http;
  conch::fuzz::fuzz_input in{data, size};
  bool binary = in.byte() & 1;
  auto json_length = in.u32() % 4096;
  request req;
  req.method = "POST";
  if (binary)
    req.headers.add("Inference-Header-Content-Length", std::to_string(json_length));
  req.body = owned_bytes(conch::fuzz::expand_json_bomb(in.rest()));
  auto decoded = kserve::codec::decode_infer_request(req, "model", -1);
  (void) decoded;
  return 0;
}
