#include "conch/runtime/request_trace.hpp"

#include <gtest/gtest.h>

#include "conch/runtime/inference_job.hpp"

namespace conch::runtime {
namespace {

// Keeps what it is given.
struct keeping_sink final : trace_sink {
  std::vector<trace_record> records;
  uint64_t ids = 0;
  void submit(trace_record&& r) noexcept override { records.push_back(std::move(r)); }
  uint64_t next_id() noexcept override { return ++ids; }
};

TEST(request_trace, reads_w3c_traceparent) {
  auto c = parse_traceparent("00-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424-01", "k=v");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->trace_id[0], 0x0a);
  EXPECT_EQ(c->trace_id[15], 0x6c);
  EXPECT_EQ(c->parent_span_id[7], 0x24);
  EXPECT_EQ(c->flags, 1);
  EXPECT_EQ(c->state, "k=v");
  EXPECT_TRUE(c->remote);
  // Malformed, upper case, all-zero ids, version 00 with more fields.
  for (const char* bad : {"", "00-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424",
                          "00-0AF7651916CD43DD8448EB211C12666C-b7ad6b7169242424-01",
                          "00-00000000000000000000000000000000-b7ad6b7169242424-01",
                          "00-0af7651916cd43dd8448eb211c12666c-0000000000000000-01",
                          "00-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424-01-xx",
                          "ff-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424-01"})
    EXPECT_FALSE(parse_traceparent(bad, "")) << bad;
  // A later version may carry more.
  EXPECT_TRUE(parse_traceparent("01-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424-01-xx",
                                ""));
}

TEST(request_trace, reaches_its_sink_with_its_children_when_let_go) {
  auto sink = std::make_shared<keeping_sink>();
  auto root = std::make_shared<request_trace>(sink, trace_timestamps, "ensemble");
  root->stamp("HTTP_RECV_START", 1);
  auto child = root->spawn_child("step");
  EXPECT_EQ(child->parent_id(), root->id());
  EXPECT_NE(child->id(), root->id());
  root.reset();
  EXPECT_TRUE(sink->records.empty());  // the child still holds it
  child->stamp("REQUEST_START", 2);
  child.reset();
  ASSERT_EQ(sink->records.size(), 1u);
  const auto& r = sink->records[0];
  EXPECT_EQ(r.model_name, "ensemble");
  ASSERT_EQ(r.children.size(), 1u);
  EXPECT_EQ(r.children[0].model_name, "step");
  EXPECT_EQ(r.children[0].parent_id, r.id);
  // The children continue the request's trace.
  EXPECT_EQ(r.children[0].context.trace_id, r.context.trace_id);
  EXPECT_TRUE(r.context.valid());
  EXPECT_FALSE(r.context.remote);  // made up: no caller's span above it
}

TEST(request_trace, a_job_records_the_cores_timestamps_at_its_end) {
  auto sink = std::make_shared<keeping_sink>();
  inference_request req;
  req.model_name = "m";
  req.id = "r1";
  req.trace = std::make_shared<request_trace>(sink, trace_timestamps, "m");
  auto job = std::make_shared<inference_job>(std::move(req), [](inference_response&&) {});
  job->resolve(3);
  job->times().queue_start = job->times().arrival + 1;
  job->times().exec_start = job->times().arrival + 2;
  inference_response r;
  r.final = true;
  job->respond(std::move(r));
  job.reset();
  ASSERT_EQ(sink->records.size(), 1u);
  const auto& rec = sink->records[0];
  EXPECT_EQ(rec.model_version, 3);
  EXPECT_EQ(rec.request_id, "r1");
  std::vector<std::string> names;
  for (const auto& s : rec.stamps)
    names.emplace_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"REQUEST_START", "QUEUE_START", "COMPUTE_START",
                                             "COMPUTE_END", "REQUEST_END"}));
}

TEST(request_trace, only_a_job_that_hands_it_back_puts_the_trace_on_its_final_response) {
  auto sink = std::make_shared<keeping_sink>();
  for (bool hand_back : {false, true}) {
    auto before = sink->records.size();
    inference_request req;
    req.model_name = "m";
    req.trace = std::make_shared<request_trace>(sink, trace_timestamps, "m");
    request_trace_ptr seen;
    auto job = std::make_shared<inference_job>(
      std::move(req), [&](inference_response&& r) { seen = std::move(r.trace); });
    if (hand_back)
      job->hand_trace_back();
    inference_response r;
    r.final = true;
    job->respond(std::move(r));
    job.reset();
    EXPECT_EQ(seen != nullptr, hand_back);
    // Written once the job and whoever took the trace let it go.
    EXPECT_EQ(sink->records.size(), before + (hand_back ? 0 : 1));
    seen.reset();
    EXPECT_EQ(sink->records.size(), before + 1);
  }
}

} // namespace
} // namespace conch::runtime
