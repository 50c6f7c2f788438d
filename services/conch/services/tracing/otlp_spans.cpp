#include "conch/services/tracing/otlp_spans.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>

namespace conch::services {

namespace {

using runtime::trace_record;
using runtime::trace_stamp;

std::string random_bytes(size_t n) {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  std::string out(n, '\0');
  for (size_t i = 0; i < n; i += 8) {
    uint64_t v = gen();
    std::memcpy(out.data() + i, &v, std::min<size_t>(8, n - i));
  }
  return out;
}

template <size_t N>
std::string bytes_of(const std::array<uint8_t, N>& a) {
  return std::string{reinterpret_cast<const char*>(a.data()), N};
}

bool starts_with(const char* name, const char* prefix) {
  return std::strncmp(name, prefix, std::strlen(prefix)) == 0;
}

bool frontend_stamp(const trace_stamp& s) {
  return starts_with(s.name, "HTTP_") || starts_with(s.name, "GRPC_")
         || std::strcmp(s.name, "INFER_RESPONSE_COMPLETE") == 0;
}

bool model_stamp(const trace_stamp& s) {
  return std::strcmp(s.name, "REQUEST_START") == 0 || std::strcmp(s.name, "QUEUE_START") == 0
         || std::strcmp(s.name, "REQUEST_END") == 0;
}

const trace_stamp* find(const trace_record& r, const char* name) {
  for (const auto& s : r.stamps)
    if (std::strcmp(s.name, name) == 0)
      return &s;
  return nullptr;
}

void add_attribute(otlp::Span& span, const char* key, const std::string& value) {
  auto* kv = span.add_attributes();
  kv->set_key(key);
  kv->mutable_value()->set_string_value(value);
}

void add_attribute(otlp::Span& span, const char* key, int64_t value) {
  auto* kv = span.add_attributes();
  kv->set_key(key);
  kv->mutable_value()->set_int_value(value);
}

struct builder {
  int64_t offset;
  std::string trace_id;
  std::string trace_state;
  google::protobuf::RepeatedPtrField<otlp::Span>& out;

  uint64_t unix(uint64_t ns) const { return static_cast<uint64_t>(ns + offset); }

  otlp::Span& open(const char* name, const std::string& id, const std::string& parent,
                   uint64_t start, uint64_t end) {
    auto& span = *out.Add();
    span.set_trace_id(trace_id);
    span.set_span_id(id);
    span.set_parent_span_id(parent);
    span.set_trace_state(trace_state);
    span.set_name(name);
    span.set_kind(otlp::Span::SPAN_KIND_SERVER);
    span.set_start_time_unix_nano(unix(start));
    span.set_end_time_unix_nano(unix(std::max(start, end)));
    return span;
  }

  void add_event(otlp::Span& span, const trace_stamp& s) {
    auto* e = span.add_events();
    e->set_time_unix_nano(unix(s.ns));
    e->set_name(s.name);
  }

  // The model span of `r` below `parent`, its compute span, and its
  // children's spans below it.
  void model(const trace_record& r, const std::string& parent) {
    const auto* begin = find(r, "REQUEST_START");
    const auto* end = find(r, "REQUEST_END");
    uint64_t start_ns = begin ? begin->ns : (r.stamps.empty() ? 0 : r.stamps.front().ns);
    uint64_t end_ns = end ? end->ns : (r.stamps.empty() ? start_ns : r.stamps.back().ns);
    auto id = bytes_of(r.span_id);
    auto& span = open(r.model_name.c_str(), id, parent, start_ns, end_ns);
    add_attribute(span, "triton.model_name", r.model_name);
    add_attribute(span, "triton.model_version", r.model_version);
    add_attribute(span, "triton.trace_id", static_cast<int64_t>(r.id));
    add_attribute(span, "triton.trace_parent_id", static_cast<int64_t>(r.parent_id));
    if (!r.request_id.empty())
      add_attribute(span, "triton.request_id", r.request_id);
    for (const auto& s : r.stamps)
      if (model_stamp(s))
        add_event(span, s);
    if (const auto* compute = find(r, "COMPUTE_START")) {
      const auto* done = find(r, "COMPUTE_END");
      auto& c = open("compute", random_bytes(8), id, compute->ns, done ? done->ns : end_ns);
      for (const auto& s : r.stamps)
        if (starts_with(s.name, "COMPUTE_"))
          add_event(c, s);
    }
    for (const auto& child : r.children)
      model(child, id);
  }
};

} // namespace

void append_spans(const trace_record& trace, int64_t unix_offset_ns,
                  google::protobuf::RepeatedPtrField<otlp::Span>& out) {
  builder b{unix_offset_ns,
            trace.context.valid() ? bytes_of(trace.context.trace_id) : random_bytes(16),
            trace.context.state, out};
  // Below the caller's span only when the request came with one.
  std::string parent;
  if (trace.context.valid() && trace.context.remote)
    parent = bytes_of(trace.context.parent_span_id);
  uint64_t first = 0;
  uint64_t last = 0;
  for (const auto& s : trace.stamps) {
    first = first == 0 ? s.ns : std::min(first, s.ns);
    last = std::max(last, s.ns);
  }
  auto root_id = random_bytes(8);
  auto& root = b.open("InferRequest", root_id, parent, first, last);
  for (const auto& s : trace.stamps)
    if (frontend_stamp(s))
      b.add_event(root, s);
  b.model(trace, root_id);
}

otlp::ExportTraceServiceRequest
export_request(const std::vector<std::pair<std::string, std::string>>& resource,
               google::protobuf::RepeatedPtrField<otlp::Span>&& spans) {
  otlp::ExportTraceServiceRequest req;
  auto* rs = req.add_resource_spans();
  auto* attributes = rs->mutable_resource()->mutable_attributes();
  auto set = [&](const std::string& key, const std::string& value) {
    for (auto& kv : *attributes)
      if (kv.key() == key) {
        kv.mutable_value()->set_string_value(value);
        return;
      }
    auto* kv = attributes->Add();
    kv->set_key(key);
    kv->mutable_value()->set_string_value(value);
  };
  set("service.name", "triton-inference-server");
  for (const auto& [k, v] : resource)
    set(k, v);
  auto* scope = rs->add_scope_spans();
  scope->mutable_scope()->set_name("triton-server");
  *scope->mutable_spans() = std::move(spans);
  return req;
}

int64_t steady_to_unix_offset_ns() {
  auto system = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  auto steady = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now().time_since_epoch())
                  .count();
  return static_cast<int64_t>(system - steady);
}

} // namespace conch::services
