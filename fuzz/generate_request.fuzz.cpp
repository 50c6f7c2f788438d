// The generate extension's request decoder, against a model with inputs of
// several types and shapes; a body starting with '!' is a depth bomb
// (json_bomb.hpp).
#include <string>

#include <google/protobuf/text_format.h>

#include "conch/transports/http/kserve/generate/decode_generate_request.hpp"
#include "conch/transports/http/owned_bytes.hpp"
#include "json_bomb.hpp"

namespace {

const inference::ModelConfig& config() {
  static const inference::ModelConfig c = [] {
    inference::ModelConfig out;
    google::protobuf::TextFormat::ParseFromString(R"(
      name: "gen" max_batch_size: 4
      input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] },
              { name: "max_tokens" data_type: TYPE_INT32 dims: [ 1 ] },
              { name: "temperature" data_type: TYPE_FP32 dims: [ 1 ] },
              { name: "flags" data_type: TYPE_BOOL dims: [ -1 ] },
              { name: "ids" data_type: TYPE_UINT64 dims: [ -1 ] } ]
      output [ { name: "text_output" data_type: TYPE_STRING dims: [ 1 ] } ])",
                                                  &out);
    return out;
  }();
  return c;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace conch::transports::http;
  request req;
  req.method = "POST";
  req.body = owned_bytes(
    conch::fuzz::expand_json_bomb({reinterpret_cast<const char*>(data), size}));
  auto decoded = kserve::decode_generate_request(req, config(), "gen", -1);
  (void) decoded;
  return 0;
}
