#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "conch/runtime/buffer.hpp"
#include "conch/actors/server.hpp"
#include "conch/runtime/inference_request.hpp"

namespace conch::bench {

/// The 16 FP32 values every benchmark request carries.
inline runtime::buffer identity_input() {
  float v[16];
  for (int i = 0; i < 16; ++i)
    v[i] = static_cast<float>(i);
  return runtime::buffer::copy_of(v, sizeof(v));
}

/// A fresh FP32[1,16] request for `model`, built per submission as a client
/// builds one; the input bytes are shared, not copied. A request to a
/// sequence model ("sequence_...") is a whole sequence: START and END, with
/// a correlation id of its own. The server samples it for tracing when it
/// is submitted (nothing is traced unless a benchmark turns tracing on).
inline runtime::inference_request identity_request(const std::string& model,
                                                   const runtime::buffer& input) {
  runtime::inference_request r;
  r.model_name = model;
  r.inputs.push_back(runtime::tensor{"INPUT0", runtime::data_type::fp32, {1, 16}, input});
  if (model.rfind("sequence_", 0) == 0) {
    static std::atomic<uint64_t> next_id{1};
    r.correlation_id = next_id.fetch_add(1, std::memory_order_relaxed);
    r.flags = runtime::request_sequence_start | runtime::request_sequence_end;
  }
  return r;
}

} // namespace conch::bench
