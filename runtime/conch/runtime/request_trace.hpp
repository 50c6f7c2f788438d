#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/tensor.hpp"

namespace conch::runtime {

struct inference_request;
struct inference_response;
struct job_times;

/// What a trace records (Triton's TRITONSERVER_InferenceTraceLevel bits).
enum trace_level_bits : uint32_t {
  trace_timestamps = 0x4,
  trace_tensors = 0x8,
};

/// The W3C trace context a request arrived with (`traceparent`,
/// `tracestate`), or the one a parent trace hands its children. All zero
/// when none came.
struct trace_context {
  std::array<uint8_t, 16> trace_id{};
  /// The span the request's spans hang below.
  std::array<uint8_t, 8> parent_span_id{};
  uint8_t flags = 0;
  std::string state;
  /// True when the context came with the request (a caller's span is the
  /// parent); false for one a trace made up for its children.
  bool remote = false;

  bool valid() const noexcept;
};

/// Reads a W3C `traceparent` header ("00-<32 hex>-<16 hex>-<2 hex>") and
/// its `tracestate`; nullopt when the header is malformed, of an unknown
/// version with the wrong length, or has an all-zero id, as the W3C rules
/// say a receiver ignores it.
std::optional<trace_context> parse_traceparent(std::string_view traceparent,
                                               std::string_view tracestate);

/// One named moment of a trace, in now_ns() nanoseconds.
struct trace_stamp {
  /// A name Triton uses ("REQUEST_START", "HTTP_RECV_END", ...).
  const char* name;
  uint64_t ns;
};

/// A tensor the TENSORS level records, with the activity it was seen in
/// ("TENSOR_QUEUE_INPUT", "TENSOR_BACKEND_OUTPUT"): a copy of its host
/// bytes (none for device memory).
struct trace_tensor {
  const char* activity;
  tensor value;
};

/// A finished trace, handed to its sink.
struct trace_record {
  uint64_t id = 0;
  /// The id of the trace that spawned this one (an ensemble's, or the
  /// request whose model made a BLS call); 0 for none.
  uint64_t parent_id = 0;
  std::string model_name;
  int64_t model_version = -1;
  std::string request_id;
  uint32_t level = 0;
  std::vector<trace_stamp> stamps;
  std::vector<trace_tensor> tensors;
  trace_context context;
  /// The span id of this trace's request span (OpenTelemetry mode), which
  /// children hang below.
  std::array<uint8_t, 8> span_id{};
  /// The traces this one spawned, in the order they finished.
  std::vector<trace_record> children;
};

/// Takes finished traces: writes a trace file, or exports spans. Also hands
/// out trace ids. Thread-safe; submit() must not block the request path.
class trace_sink {
 public:
  virtual ~trace_sink() = default;
  virtual void submit(trace_record&& record) noexcept = 0;
  /// A fresh trace id (ids start at 1 and are unique per sink).
  virtual uint64_t next_id() noexcept = 0;
};

/// The trace of one request while it runs: the frontend, the server and the
/// backend stamp it, and it goes to its sink when the last of them lets it
/// go (its destructor), so a trace is complete whatever order they finish
/// in. A child trace holds its parent and goes into the parent's record
/// instead, so a trace reaches its sink with all its children. Only sampled
/// requests have one: a request without a trace costs one null check where
/// a trace would be stamped. Thread-safe.
class request_trace : public std::enable_shared_from_this<request_trace> {
 public:
  request_trace(std::shared_ptr<trace_sink> sink, uint32_t level, std::string model_name,
                uint64_t parent_id = 0);
  ~request_trace();

  request_trace(const request_trace&) = delete;
  request_trace& operator=(const request_trace&) = delete;

  uint64_t id() const noexcept { return record_.id; }
  uint64_t parent_id() const noexcept { return record_.parent_id; }
  uint32_t level() const noexcept { return record_.level; }
  bool records_tensors() const noexcept { return (record_.level & trace_tensors) != 0; }
  const std::string& model_name() const noexcept { return record_.model_name; }

  /// Records `name` at `ns`.
  void stamp(const char* name, uint64_t ns);

  /// Adopts the context a request arrived with.
  void set_context(trace_context context);
  /// The context the request's children continue: the request's trace id
  /// with this trace's span as their parent.
  trace_context child_context();

  /// A trace of a request this one's model makes (an ensemble step, a BLS
  /// call): same sink and level, a fresh id, this one as parent.
  std::shared_ptr<request_trace> spawn_child(std::string model_name);

  /// Records what the server knew of a request when it ended: its version,
  /// id, the core's timestamps (REQUEST_START to REQUEST_END at `end`) and,
  /// at the TENSORS level, its inputs and final outputs.
  void record_job(const inference_request& request, const job_times& times,
                  int64_t version, const inference_response& final, uint64_t end);

 private:
  void adopt(trace_record&& child);

  std::shared_ptr<trace_sink> sink_;
  std::shared_ptr<request_trace> parent_;
  mutable std::mutex mu_;
  trace_record record_;
};

using request_trace_ptr = std::shared_ptr<request_trace>;

/// True while some trace setting may sample a request: the frontends take a
/// receive timestamp only then. Set by the tracers.
bool tracing_active() noexcept;
/// Adds (+1) or removes (-1) one tracer whose settings may sample.
void count_active_tracer(int delta) noexcept;

} // namespace conch::runtime
