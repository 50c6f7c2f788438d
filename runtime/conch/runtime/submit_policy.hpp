#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "conch/runtime/request_trace.hpp"

namespace conch::runtime {

class resolved_model;

/// Who submits a request, which decides how it is admitted.
enum class submitter : uint8_t {
  /// The in-process API (C++ or Python): counted against the server's
  /// in-process limit, refused from the start of a stop.
  application,
  /// A network frontend, which counts and drains its own requests: admitted
  /// until the frontends have drained at a stop. A request of a sequence is
  /// refused from the stop's start, as the schedulers end idle sequences then.
  frontend,
  /// A model's own request (a BLS call, an ensemble step): its parent
  /// request was admitted, and a stop drains that request, so it is never
  /// refused by itself; it goes straight to its version's scheduler.
  model,
};

/// Where a request may run.
enum class placement : uint8_t {
  /// Through its model's queue, never on the submitting thread.
  queued,
  /// On the submitting thread when its model neither batches nor blocks and
  /// has an idle instance (the direct lane; server_options::direct_lane),
  /// so the response callback may run before submit returns. For callers
  /// whose thread may run such a model for a moment: the I/O loops, the
  /// gRPC handlers, the Python API.
  may_run_here,
};

/// The protocol a request arrived by, which names the stamps its trace
/// opens with.
enum class arrival : uint8_t {
  /// The in-process API: no receive stamps.
  inprocess,
  /// HTTP: HTTP_RECV_START and HTTP_RECV_END.
  http,
  /// gRPC: GRPC_WAITREAD_START and GRPC_WAITREAD_END.
  grpc,
};

/// What a request's trace opens with, should the server sample one: when
/// the frontend began and finished reading it (now_ns(); 0 when not taken,
/// as a frontend takes them only while runtime::tracing_active()), and the
/// W3C context it came with, which also makes a sampler that follows
/// propagated contexts take it.
struct trace_origin {
  arrival by = arrival::inprocess;
  uint64_t read_start_ns = 0;
  uint64_t read_end_ns = 0;
  std::optional<trace_context> context;
};

/// How the server takes one request in: the strong-typed policy of its one
/// submit path.
struct submit_policy {
  submitter from = submitter::application;
  placement where = placement::queued;
  /// Read only when a trace is sampled for the request (never for a
  /// model's own request, whose trace its parent's spawns).
  trace_origin trace{};
  /// The version the caller resolved the request to and decoded it against
  /// (server::resolve, gateway::resolve); null: the server resolves it.
  std::shared_ptr<const resolved_model> model;
};

/// The policy of a network frontend's request (a frontend that traces adds
/// its trace_origin to a copy).
inline const submit_policy frontend_request{submitter::frontend, placement::may_run_here, {}, {}};

/// The policy of a model's own request.
inline const submit_policy model_request{submitter::model, placement::may_run_here, {}, {}};

/// The policy of an in-process caller whose thread may run a small request
/// itself (the Python API).
inline const submit_policy inprocess_may_run_here{submitter::application,
                                                  placement::may_run_here, {}, {}};

} // namespace conch::runtime
