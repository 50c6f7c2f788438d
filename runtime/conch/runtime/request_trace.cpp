#include "conch/runtime/request_trace.hpp"

#include <algorithm>
#include <random>

#include "conch/runtime/inference_job.hpp"

namespace conch::runtime {

namespace {

std::atomic<int> active_tracers{0};

template <size_t N>
void fill_random(std::array<uint8_t, N>& out) {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  for (size_t i = 0; i < N; i += 8) {
    uint64_t v = gen();
    for (size_t j = 0; j < 8 && i + j < N; ++j)
      out[i + j] = static_cast<uint8_t>(v >> (8 * j));
  }
}

template <size_t N>
bool all_zero(const std::array<uint8_t, N>& a) {
  return std::all_of(a.begin(), a.end(), [](uint8_t b) { return b == 0; });
}

} // namespace

bool trace_context::valid() const noexcept { return !all_zero(trace_id); }

namespace {

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;  // upper case is invalid in traceparent
}

template <size_t N>
bool read_hex(std::string_view text, std::array<uint8_t, N>& out) {
  if (text.size() != 2 * N)
    return false;
  for (size_t i = 0; i < N; ++i) {
    int hi = hex_value(text[2 * i]);
    int lo = hex_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return false;
    out[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return true;
}

} // namespace

std::optional<trace_context> parse_traceparent(std::string_view traceparent,
                                               std::string_view tracestate) {
  // version "-" trace-id "-" parent-id "-" flags; a later version may add
  // fields after another "-".
  if (traceparent.size() < 55 || traceparent[2] != '-' || traceparent[35] != '-'
      || traceparent[52] != '-')
    return std::nullopt;
  std::array<uint8_t, 1> version{};
  std::array<uint8_t, 1> flags{};
  trace_context c;
  if (!read_hex(traceparent.substr(0, 2), version) || version[0] == 0xff
      || !read_hex(traceparent.substr(3, 32), c.trace_id)
      || !read_hex(traceparent.substr(36, 16), c.parent_span_id)
      || !read_hex(traceparent.substr(53, 2), flags))
    return std::nullopt;
  if (version[0] == 0 && traceparent.size() != 55)
    return std::nullopt;
  if (version[0] != 0 && traceparent.size() > 55 && traceparent[55] != '-')
    return std::nullopt;
  if (!c.valid() || all_zero(c.parent_span_id))
    return std::nullopt;
  c.flags = flags[0];
  c.state = std::string{tracestate};
  c.remote = true;
  return c;
}

bool tracing_active() noexcept { return active_tracers.load(std::memory_order_relaxed) > 0; }

void count_active_tracer(int delta) noexcept {
  active_tracers.fetch_add(delta, std::memory_order_relaxed);
}

request_trace::request_trace(std::shared_ptr<trace_sink> sink, uint32_t level,
                             std::string model_name, uint64_t parent_id)
  : sink_(std::move(sink)) {
  record_.id = sink_->next_id();
  record_.parent_id = parent_id;
  record_.level = level;
  record_.model_name = std::move(model_name);
  record_.stamps.reserve(12);
  fill_random(record_.span_id);
}

request_trace::~request_trace() {
  if (parent_)
    parent_->adopt(std::move(record_));
  else
    sink_->submit(std::move(record_));
}

void request_trace::adopt(trace_record&& child) {
  std::lock_guard<std::mutex> guard{mu_};
  record_.children.push_back(std::move(child));
}

void request_trace::stamp(const char* name, uint64_t ns) {
  std::lock_guard<std::mutex> guard{mu_};
  record_.stamps.push_back({name, ns});
}

void request_trace::set_context(trace_context context) {
  std::lock_guard<std::mutex> guard{mu_};
  record_.context = std::move(context);
}

trace_context request_trace::child_context() {
  std::lock_guard<std::mutex> guard{mu_};
  if (!record_.context.valid()) {
    // A request that came without a context starts a trace of its own; its
    // id is fixed by the first child asked for.
    fill_random(record_.context.trace_id);
  }
  trace_context c = record_.context;
  c.parent_span_id = record_.span_id;
  c.remote = false;
  return c;
}

std::shared_ptr<request_trace> request_trace::spawn_child(std::string model_name) {
  auto child = std::make_shared<request_trace>(sink_, record_.level, std::move(model_name),
                                               record_.id);
  child->set_context(child_context());
  child->parent_ = shared_from_this();
  return child;
}

void request_trace::record_job(const inference_request& request, const job_times& times,
                               int64_t version, const inference_response& final,
                               uint64_t end) {
  std::lock_guard<std::mutex> guard{mu_};
  auto& r = record_;
  if (r.model_name.empty())
    r.model_name = request.model_name;  // a trace made before its request
  r.model_version = version;
  r.request_id = request.id;
  if ((r.level & trace_timestamps) != 0) {
    auto add = [&r](const char* name, uint64_t ns) {
      if (ns != 0)
        r.stamps.push_back({name, ns});
    };
    add("REQUEST_START", times.arrival);
    add("QUEUE_START", times.queue_start);
    // An ensemble (its phases are its steps', summed) computes nothing of
    // its own, as in Triton's traces.
    if (!times.summed) {
      add("COMPUTE_START", times.exec_start);
      add("COMPUTE_INPUT_END", times.input_end);
      add("COMPUTE_OUTPUT_START", times.output_start);
      add("COMPUTE_END", times.exec_end);
    }
    add("REQUEST_END", end);
  }
  if ((r.level & trace_tensors) != 0) {
    // Copies, as Triton renders them at once: a client may reuse a shared
    // memory region, or an output buffer, before the trace is written.
    auto copy = [](const tensor& t) {
      tensor c{t.name, t.type, t.shape, {}};
      if (t.data.host_accessible() && t.data.data() != nullptr)
        c.data = buffer::copy_of(t.data.data(), t.data.size());
      return c;
    };
    for (const auto& t : request.inputs)
      r.tensors.push_back({"TENSOR_QUEUE_INPUT", copy(t)});
    for (const auto& t : final.outputs)
      r.tensors.push_back({"TENSOR_BACKEND_OUTPUT", copy(t)});
  }
}

} // namespace conch::runtime
