#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "conch/runtime/memory_type.hpp"
#include "conch/runtime/parameter.hpp"
#include "conch/runtime/request_trace.hpp"
#include "conch/runtime/response_allocator.hpp"
#include "conch/runtime/tensor.hpp"

namespace conch::runtime {

/// Request flags; the values equal TRITONSERVER_RequestFlag.
enum request_flags : uint32_t {
  request_sequence_start = 1,
  request_sequence_end = 2,
};

/// Whether a request's tensors alias memory its client can still write.
enum class client_memory : uint8_t {
  /// The server holds its own copy of every input, and outputs go to
  /// memory only the server writes.
  none,
  /// Some input or output lives in a region the client shares with the
  /// server.
  shared,
};

/// One inference request, protocol-neutral. Frontends decode into it; its
/// input tensors alias the bytes the request arrived in.
struct inference_request {
  /// The model to run.
  std::string model_name;
  /// The version to run; -1 lets the server pick (the highest ready version).
  int64_t model_version = -1;
  /// The client's request id, echoed in every response.
  std::string id;
  /// request_flags bits.
  uint32_t flags = 0;
  /// The correlation id: none, a number or a string.
  std::variant<std::monostate, uint64_t, std::string> correlation_id;
  /// The priority level; 0 means the model's default level.
  uint64_t priority = 0;
  /// The queue timeout in microseconds; 0 means the model's default.
  uint64_t timeout_us = 0;
  /// The inputs, in the order the client sent them.
  std::vector<tensor> inputs;
  /// The outputs to return; empty means every output of the model.
  std::vector<std::string> requested_outputs;
  /// Client parameters other than the reserved ones.
  parameter_list parameters;
  /// The memory outputs should preferably live in.
  memory_type preferred_output_memory = memory_type::cpu;
  int64_t preferred_output_device = 0;
  /// Where outputs are allocated; null means host memory.
  std::shared_ptr<response_allocator> allocator;
  /// Whether some of the request's inputs or outputs live in memory the
  /// client can change while the request runs (its shared memory). Such a
  /// request is never answered from the response cache nor stored in it:
  /// the bytes the cache would key or keep are not the bytes the model saw.
  client_memory memory_of_client = client_memory::none;
  /// The request's trace when it was sampled (see request_trace); null
  /// otherwise. Whoever submits the request decides.
  request_trace_ptr trace;

  /// The input called `name`, or nullptr.
  const tensor* input(const std::string& name) const noexcept;

  /// True when output `name` was asked for (or no selection was made).
  bool wants_output(const std::string& name) const noexcept;
};

} // namespace conch::runtime
