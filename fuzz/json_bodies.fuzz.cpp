// Every JSON body the HTTP frontends read besides inference and generate:
// repository index, load (and the model configuration its "config"
// override carries) and unload, logging, trace settings, system and CUDA
// shared-memory registration, SageMaker's multi-model load. The first byte
// picks the decoder; the rest is the body, where a leading '!' makes a
// depth bomb (json_bomb.hpp). Each answers a value or a status, never a
// crash.
#include <string>

#include "conch/runtime/model_config/json.hpp"
#include "conch/transports/http/cloud/sagemaker_load_body.hpp"
#include "conch/transports/http/kserve/log_settings_body.hpp"
#include "conch/transports/http/kserve/repository_bodies.hpp"
#include "conch/transports/http/kserve/shared_memory_bodies.hpp"
#include "conch/transports/http/kserve/trace_settings_body.hpp"
#include "conch/transports/http/owned_bytes.hpp"
#include "fuzz_input.hpp"
#include "json_bomb.hpp"

namespace {

using namespace conch::transports::http;

void decode_load(const request& req) {
  auto load = kserve::parse_load_body(req);
  if (load && load->config_json)
    (void) conch::runtime::model_config::from_json(*load->config_json);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  conch::fuzz::fuzz_input in{data, size};
  auto which = in.byte() % 9;
  auto body = conch::fuzz::expand_json_bomb(in.rest());
  request req;
  req.method = "POST";
  req.body = owned_bytes(body);
  switch (which) {
    case 0: (void) kserve::parse_index_body(req); break;
    case 1: decode_load(req); break;
    case 2: (void) kserve::parse_unload_body(req); break;
    case 3: (void) kserve::parse_log_settings_body(req); break;
    case 4: (void) kserve::parse_trace_settings_body(req); break;
    case 5: (void) kserve::parse_system_register_body(req); break;
    case 6: (void) kserve::parse_cuda_register_body(req); break;
    case 7: (void) cloud::parse_sagemaker_load_body(req); break;
    default: (void) conch::runtime::model_config::from_json(body); break;
  }
  return 0;
}
