#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include <grpcpp/server_context.h>

#include "conch/runtime/inference_response.hpp"
#include "conch/runtime/status.hpp"
#include "conch/transports/grpc/encode_infer_response.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

/// A message written to a ModelStreamInfer stream.
using stream_message = inference::ModelStreamInferResponse;
using stream_message_ptr = std::unique_ptr<stream_message>;

/// What the responses of one stream request need to know about it.
struct stream_request_info {
  /// The request's place in the stream.
  uint64_t seq = 0;
  bool decoupled = false;
  /// The client asked for an empty final response
  /// (`triton_enable_empty_final_response`).
  bool empty_final = false;
  std::string id;
  std::string model_name;
  std::string model_version;
  /// How its outputs go back (shared memory, classification).
  response_encoding encoding;
};

/// The in-stream error for a request (spec §2.5): `error_message`, and an
/// infer_response with only the request's id, model name and version and
/// `triton_final_response: true`.
stream_message_ptr stream_error(const stream_request_info& info, const runtime::status& st);

/// The empty final response of a decoupled request that asked for one: no
/// outputs, the request's id, model name and version, final.
stream_message_ptr stream_empty_final(const stream_request_info& info);

/// The message of a successful response, with `triton_final_response` set
/// to `final`; the errors of encode_infer_response. `reuse`, when not null,
/// is a message written before: it is emptied and filled again, keeping the
/// strings, output entries and parameter its last response allocated.
runtime::result<stream_message_ptr> stream_response(const stream_request_info& info,
                                                    const runtime::inference_response& r,
                                                    stream_message_ptr reuse = nullptr);

/// One written message kept for the stream's next response, handed over
/// without a lock: the write that finished gives, the next response takes.
class spare_message {
 public:
  spare_message() = default;
  spare_message(const spare_message&) = delete;
  spare_message& operator=(const spare_message&) = delete;
  ~spare_message() { delete slot_.load(std::memory_order_relaxed); }

  /// Keeps `m` (dropping the one kept before, if any).
  void give(stream_message_ptr m) noexcept {
    delete slot_.exchange(m.release(), std::memory_order_acq_rel);
  }
  /// The message kept, or null.
  stream_message_ptr take() noexcept {
    return stream_message_ptr{slot_.exchange(nullptr, std::memory_order_acq_rel)};
  }

 private:
  std::atomic<stream_message*> slot_{nullptr};
};

/// True when `request` sets `triton_enable_empty_final_response` to true.
bool empty_final_requested(const inference::ModelInferRequest& request);

/// True when the client opened the stream with metadata
/// `triton_grpc_error: true`: errors then end the stream with their status.
bool grpc_error_requested(const ::grpc::ServerContextBase& ctx);

} // namespace conch::transports::grpc
