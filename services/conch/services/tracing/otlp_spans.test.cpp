#include "conch/services/tracing/otlp_spans.hpp"

#include <algorithm>
#include <map>

#include <gtest/gtest.h>

namespace conch::services {
namespace {

using runtime::trace_record;

trace_record model_record(uint64_t id, uint64_t parent, std::string model, uint64_t t0,
                          bool compute) {
  trace_record r;
  r.id = id;
  r.parent_id = parent;
  r.model_name = std::move(model);
  r.model_version = 1;
  r.span_id = {static_cast<uint8_t>(id), 1, 2, 3, 4, 5, 6, 7};
  r.stamps = {{"REQUEST_START", t0}, {"QUEUE_START", t0 + 1}};
  if (compute)
    r.stamps.insert(r.stamps.end(), {{"COMPUTE_START", t0 + 2}, {"COMPUTE_INPUT_END", t0 + 3},
                                     {"COMPUTE_OUTPUT_START", t0 + 4}, {"COMPUTE_END", t0 + 5}});
  r.stamps.push_back({"REQUEST_END", t0 + 6});
  return r;
}

TEST(otlp_spans, nest_as_tritons_do) {
  auto root = model_record(1, 0, "ensemble", 100, false);
  root.request_id = "r1";
  root.stamps.insert(root.stamps.begin(), {{"HTTP_RECV_START", 90}, {"HTTP_RECV_END", 95}});
  root.stamps.push_back({"HTTP_SEND_START", 120});
  root.stamps.push_back({"HTTP_SEND_END", 121});
  auto ctx = runtime::parse_traceparent(
    "00-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424-01", "");
  root.context = *ctx;
  root.children.push_back(model_record(2, 1, "simple", 102, true));

  google::protobuf::RepeatedPtrField<otlp::Span> spans;
  append_spans(root, 1000, spans);
  ASSERT_EQ(spans.size(), 4);
  std::map<std::string, const otlp::Span*> by_name;
  for (const auto& s : spans)
    by_name[s.name()] = &s;
  const auto& request = *by_name.at("InferRequest");
  const auto& ensemble = *by_name.at("ensemble");
  const auto& simple = *by_name.at("simple");
  const auto& compute = *by_name.at("compute");
  std::string trace_id(reinterpret_cast<const char*>(ctx->trace_id.data()), 16);
  for (const auto& s : spans) {
    EXPECT_EQ(s.trace_id(), trace_id);
    EXPECT_EQ(s.span_id().size(), 8u);
    EXPECT_EQ(s.kind(), otlp::Span::SPAN_KIND_SERVER);
  }
  EXPECT_EQ(request.parent_span_id(),
            std::string(reinterpret_cast<const char*>(ctx->parent_span_id.data()), 8));
  EXPECT_EQ(ensemble.parent_span_id(), request.span_id());
  EXPECT_EQ(simple.parent_span_id(), ensemble.span_id());
  EXPECT_EQ(compute.parent_span_id(), simple.span_id());
  EXPECT_EQ(request.start_time_unix_nano(), 1090u);
  EXPECT_EQ(request.end_time_unix_nano(), 1121u);
  EXPECT_EQ(ensemble.start_time_unix_nano(), 1100u);
  EXPECT_EQ(ensemble.end_time_unix_nano(), 1106u);
  auto events = [](const otlp::Span& s) {
    std::vector<std::string> out;
    for (const auto& e : s.events())
      out.push_back(e.name());
    return out;
  };
  EXPECT_EQ(events(request), (std::vector<std::string>{"HTTP_RECV_START", "HTTP_RECV_END",
                                                       "HTTP_SEND_START", "HTTP_SEND_END"}));
  EXPECT_EQ(events(ensemble),
            (std::vector<std::string>{"REQUEST_START", "QUEUE_START", "REQUEST_END"}));
  EXPECT_EQ(events(compute), (std::vector<std::string>{"COMPUTE_START", "COMPUTE_INPUT_END",
                                                       "COMPUTE_OUTPUT_START", "COMPUTE_END"}));
  std::map<std::string, std::string> attributes;
  for (const auto& kv : simple.attributes())
    attributes[kv.key()] = kv.value().has_string_value()
                             ? kv.value().string_value()
                             : std::to_string(kv.value().int_value());
  EXPECT_EQ(attributes["triton.model_name"], "simple");
  EXPECT_EQ(attributes["triton.model_version"], "1");
  EXPECT_EQ(attributes["triton.trace_id"], "2");
  EXPECT_EQ(attributes["triton.trace_parent_id"], "1");
  EXPECT_EQ(attributes.count("triton.request_id"), 0u);
}

TEST(otlp_spans, a_request_without_context_starts_a_trace) {
  auto r = model_record(1, 0, "m", 10, true);
  // A context made up for children (an ensemble's, a BLS call's) is no
  // caller's: the root span still has no parent.
  std::fill(r.context.trace_id.begin(), r.context.trace_id.end(), 7);
  std::fill(r.context.parent_span_id.begin(), r.context.parent_span_id.end(), 0);
  google::protobuf::RepeatedPtrField<otlp::Span> spans;
  append_spans(r, 0, spans);
  ASSERT_EQ(spans.size(), 3);
  EXPECT_EQ(spans[0].name(), "InferRequest");
  EXPECT_TRUE(spans[0].parent_span_id().empty());
  EXPECT_EQ(spans[0].trace_id(), std::string(16, '\x07'));
}

TEST(otlp_spans, the_resource_names_the_service) {
  google::protobuf::RepeatedPtrField<otlp::Span> spans;
  auto req = export_request({{"service.name", "test_triton"}, {"test.key", "test.value"}},
                            std::move(spans));
  const auto& attributes = req.resource_spans(0).resource().attributes();
  ASSERT_EQ(attributes.size(), 2);
  EXPECT_EQ(attributes[0].key(), "service.name");
  EXPECT_EQ(attributes[0].value().string_value(), "test_triton");
  EXPECT_EQ(attributes[1].key(), "test.key");
  EXPECT_EQ(req.resource_spans(0).scope_spans(0).scope().name(), "triton-server");
  auto plain = export_request({}, {});
  EXPECT_EQ(plain.resource_spans(0).resource().attributes(0).value().string_value(),
            "triton-inference-server");
}

} // namespace
} // namespace conch::services
