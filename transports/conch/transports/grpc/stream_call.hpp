#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include <grpcpp/support/server_callback.h>

#include "conch/runtime/inference_response.hpp"
#include "conch/transports/gateway.hpp"
#include "conch/transports/grpc/call_limits.hpp"
#include "conch/transports/grpc/finisher.hpp"
#include "conch/transports/grpc/infer_call_settings.hpp"
#include "conch/transports/grpc/inflight_calls.hpp"
#include "conch/transports/grpc/spare_nodes.hpp"
#include "conch/transports/grpc/stream_messages.hpp"

namespace conch::transports::grpc {

/// The reactor type of a ModelStreamInfer call.
using stream_reactor_base
  = ::grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>;

/// The state of one ModelStreamInfer stream, which outlives its reactor: the
/// server's callbacks may run after the reactor finished. gRPC operations
/// are started under the mutex (gRPC never runs a reactor's callbacks
/// inline); the server is called outside it, since it may answer at once.
struct stream_call : std::enable_shared_from_this<stream_call> {
  // -- set once at start -----------------------------------------------------
  gateway_ptr server;
  std::shared_ptr<inflight_calls> calls;
  std::shared_ptr<const call_limits> limits;
  stream_reactor_base* reactor = nullptr;
  uint64_t ticket = 0;
  size_t max_outstanding = 0;
  bool grpc_error = false;
  /// Metadata added to each request.
  forwarded_headers forwarded;
  /// The W3C trace context of the stream's metadata, for traced requests.
  std::optional<runtime::trace_context> trace_context;
  /// Where a model's thread hands the stream's next gRPC operations while
  /// other calls are in flight; null: it starts them itself.
  finisher* finishing = nullptr;
  /// The read buffer; touched only between StartRead and OnReadDone.
  inference::ModelInferRequest request;
  /// The last message written, for the next response to fill again; kept
  /// only when it took at most max_spare_bytes.
  spare_message spare;
  static constexpr size_t max_spare_bytes = 64 * 1024;

  std::mutex mutex;

  // -- guarded by mutex ------------------------------------------------------

  /// A request submitted and not finally answered.
  struct pending {
    cancel_fn cancel;
    protocol::admission::ticket admitted;
  };

  std::map<uint64_t, stream_message_ptr> ordered;  // non-decoupled, null until answered
  std::deque<stream_message_ptr> writes;
  stream_message_ptr writing;
  size_t writing_bytes = 0;   // of `writing`
  size_t pending_bytes = 0;   // of the messages queued and being written
  std::unordered_map<uint64_t, pending> inflight;
  /// The map nodes of answered requests, for the next requests' entries.
  spare_nodes<std::map<uint64_t, stream_message_ptr>> spare_ordered;
  spare_nodes<std::unordered_map<uint64_t, pending>> spare_inflight;
  size_t outstanding = 0;
  uint64_t next_seq = 0;
  bool reading = false;
  bool read_closed = false;
  bool finished = false;
  bool draining = false;  // the server stops: answer what is in flight, then end
  bool step_posted = false;  // a step() waits on the finisher
  std::optional<::grpc::Status> end_status;

  // -- called with the mutex held --------------------------------------------

  /// Starts what may start now: the next write, the next read, the finish.
  void step();

  /// Finishes the call with `st`.
  void finish(const ::grpc::Status& st);

  /// The write in progress finished.
  void written();

  /// Ends the stream with `st`; returns the cancels of its requests, to be
  /// called outside the mutex.
  std::vector<cancel_fn> end(::grpc::Status st);

  // -- called without the mutex ----------------------------------------------

  /// Takes the request just read: checks it, decodes it and submits it.
  void submit(const std::shared_ptr<stream_call>& self);

  /// Called by the server for each response of one request.
  void on_response(const stream_request_info& info, runtime::inference_response&& r);

 private:
  // Queues a message of request `info` (with the mutex held); true when the
  // responses waiting pass the stream's backlog cap.
  bool queue(const stream_request_info& info, stream_message_ptr m);
  void forget_bytes(size_t n);
  // step(), or, on a model's thread while other calls are in flight, a
  // step() on the finisher: the write it starts (encoding, the transport's
  // send) would cost the model's worker more than the model itself.
  void step_or_hand_off();
};

} // namespace conch::transports::grpc
