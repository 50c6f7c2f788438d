// The real scheduler behind the public API: dynamic batching, queue limits
// and timeouts, priorities, ordering, parallel instances, cancellation,
// statistics and metrics.

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/gate_backend.hpp"
#include "support/metrics_text.hpp"
#include "support/model_configs.hpp"
#include "support/response_collector.hpp"
#include "support/server_fixture.hpp"
#include "support/temp_repository.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

using namespace std::chrono_literals;
using actors::control_mode;
using runtime::data_type;
using runtime::errc;

runtime::inference_request gate_request(const std::string& model, const std::string& id) {
  return make_request(model, id,
                      {make_tensor("INPUT0", data_type::fp32, {1, 4},
                                   std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f})});
}

class scheduling : public server_fixture {
 protected:
  // Starts a server over `repo_` with a single adapter, so that requests
  // submitted from one thread reach a model in submission order.
  actors::server serve(control_mode mode = control_mode::none) {
    auto o = options_for(repo_.str(), mode);
    o.adapter_count = 1;
    auto s = start(o);
    EXPECT_TRUE(s) << s.error().to_string();
    return s ? *s : throw std::runtime_error("server did not start");
  }

  // A gate backend and a model on it called `name`.
  std::shared_ptr<gate> gate_model(const std::string& name, int max_batch_size,
                                   const std::string& extra = "") {
    auto g = std::make_shared<gate>();
    register_gate_backend("gate_" + name, g);
    repo_.add_model(name, gate_config(name, "gate_" + name, max_batch_size, extra));
    return g;
  }

  // The pending-request gauge of model `name` version 1.
  static double pending(actors::server& srv, const std::string& name) {
    return metric_value(srv.metrics_text(), "nv_inference_pending_request_count",
                        "model=\"" + name + "\",version=\"1\"")
      .value_or(-1);
  }

  temp_repository repo_;
};

// -- batching -------------------------------------------------------------------------

TEST_F(scheduling, dynamic_batching_forms_batches_never_above_max_batch_size) {
  repo_.add_model("batched",
                  delayed_identity_config("batched", 200, 4,
                                          "dynamic_batching { preferred_batch_size: [ 4 ] }"));
  auto srv = serve();
  response_collector c;
  for (int i = 0; i < 8; ++i)
    srv.submit(fp32_request("batched", std::to_string(i)), c.callback());
  ASSERT_TRUE(c.wait_finals(8, 20s));
  for (const auto& e : c.entries())
    EXPECT_TRUE(e.response.error.is_ok()) << e.response.error.to_string();
  // Requests and executions are counted before the responses go out; the
  // durations of a batch when the backend returns, which may be a moment
  // later.
  auto stats = srv.model_statistics("batched");
  ASSERT_TRUE(stats);
  EXPECT_EQ((*stats)[0].success.count, 8u);
  EXPECT_EQ((*stats)[0].inference_count, 8u);
  EXPECT_LT((*stats)[0].execution_count, 8u);
  auto batched_items = [](const auto& s) {
    uint64_t items = 0;
    for (const auto& b : s.batch_stats)
      items += b.batch_size * b.compute_infer.count;
    return items;
  };
  ASSERT_TRUE(eventually([&] {
    stats = srv.model_statistics("batched");
    return stats && batched_items((*stats)[0]) == 8;
  }));
  bool batched = false;
  for (const auto& b : (*stats)[0].batch_stats) {
    EXPECT_GE(b.batch_size, 1u);
    EXPECT_LE(b.batch_size, 4u);
    batched = batched || (b.batch_size > 1 && b.compute_infer.count > 0);
  }
  EXPECT_TRUE(batched);
}

// -- queue policy ---------------------------------------------------------------------

TEST_F(scheduling, a_full_queue_rejects_with_exceeds_maximum_queue_size) {
  auto g = gate_model("limited", 1,
                      "dynamic_batching { default_queue_policy { max_queue_size: 2 } }");
  auto srv = serve();
  response_collector c;
  srv.submit(gate_request("limited", "running"), c.callback());
  ASSERT_TRUE(g->wait_entered(1));
  srv.submit(gate_request("limited", "q1"), c.callback());
  srv.submit(gate_request("limited", "q2"), c.callback());
  srv.submit(gate_request("limited", "over"), c.callback());
  // The rejection comes while the instance is still held.
  ASSERT_TRUE(c.wait_finals(1));
  auto over = c.final_of("over");
  EXPECT_EQ(over.error.code(), errc::unavailable) << over.error.to_string();
  EXPECT_NE(over.error.message().find("Exceeds maximum queue size"), std::string::npos)
    << over.error.message();
  g->open();
  ASSERT_TRUE(c.wait_finals(4));
  for (const char* id : {"running", "q1", "q2"})
    EXPECT_TRUE(c.final_of(id).error.is_ok()) << id << ": " << c.final_of(id).error.to_string();
}

TEST_F(scheduling, a_queue_timeout_rejects_with_request_timeout_expired) {
  auto g = gate_model("timed", 1,
                      "dynamic_batching { default_queue_policy { timeout_action: REJECT "
                      "default_timeout_microseconds: 50000 } }");
  auto srv = serve();
  response_collector c;
  srv.submit(gate_request("timed", "running"), c.callback());
  ASSERT_TRUE(g->wait_entered(1));
  srv.submit(gate_request("timed", "late"), c.callback());
  ASSERT_TRUE(c.wait_finals(1));
  auto late = c.final_of("late");
  EXPECT_EQ(late.error.code(), errc::unavailable) << late.error.to_string();
  EXPECT_NE(late.error.message().find("Request timeout expired"), std::string::npos)
    << late.error.message();
  g->open();
  ASSERT_TRUE(c.wait_finals(2));
  EXPECT_TRUE(c.final_of("running").error.is_ok());
  // The timed-out request never reached the backend.
  EXPECT_EQ(g->batches().size(), 1u);
}

TEST_F(scheduling, higher_priority_requests_run_first) {
  auto g = gate_model("prio", 1,
                      "dynamic_batching { priority_levels: 2 default_priority_level: 2 }");
  auto srv = serve();
  response_collector c;
  srv.submit(gate_request("prio", "first"), c.callback());
  ASSERT_TRUE(g->wait_entered(1));
  for (const char* id : {"low1", "low2"})
    srv.submit(gate_request("prio", id), c.callback());
  for (const char* id : {"high1", "high2"}) {
    auto request = gate_request("prio", id);
    request.priority = 1;
    srv.submit(std::move(request), c.callback());
  }
  ASSERT_TRUE(eventually([&] { return pending(srv, "prio") == 4; }))
    << "pending: " << pending(srv, "prio");
  g->open();
  ASSERT_TRUE(c.wait_finals(5));
  EXPECT_EQ(c.final_order(),
            (std::vector<std::string>{"first", "high1", "high2", "low1", "low2"}));
}

// -- ordering ---------------------------------------------------------------------------

// Sends four requests; the first one sleeps `slow_ms`, the others not at all.
std::vector<std::string> order_of_four(actors::server& srv, const std::string& model, int slow_ms) {
  response_collector c;
  for (int i = 0; i < 4; ++i)
    srv.submit(with_parameter(fp32_request(model, "r" + std::to_string(i)), "execute_delay_ms",
                             i == 0 ? slow_ms : 0),
              c.callback());
  EXPECT_TRUE(c.wait_finals(4));
  for (const auto& e : c.entries())
    EXPECT_TRUE(e.response.error.is_ok()) << e.response.error.to_string();
  return c.final_order();
}

TEST_F(scheduling, several_instances_without_dynamic_batching_answer_each_request_when_done) {
  // As in Triton: a fast request of one client does not wait behind a slow
  // one of another.
  repo_.add_model("two", delayed_identity_config("two", 0, 8,
                                                 "instance_group [ { count: 2 kind: KIND_CPU } ]"));
  auto srv = serve();
  auto order = order_of_four(srv, "two", 1000);
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order.back(), "r0");
}

TEST_F(scheduling, preserve_ordering_answers_in_request_order) {
  repo_.add_model("ordered",
                  delayed_identity_config("ordered", 0, 1,
                                          "instance_group [ { count: 2 kind: KIND_CPU } ]\n"
                                          "dynamic_batching { preserve_ordering: true }"));
  auto srv = serve();
  EXPECT_EQ(order_of_four(srv, "ordered", 300),
            (std::vector<std::string>{"r0", "r1", "r2", "r3"}));
}

TEST_F(scheduling, without_preserve_ordering_a_fast_request_overtakes_a_slow_one) {
  // The control for the two tests above: the same load without ordering
  // lets r1 finish while r0 still sleeps.
  repo_.add_model("unordered",
                  delayed_identity_config("unordered", 0, 1,
                                          "instance_group [ { count: 2 kind: KIND_CPU } ]\n"
                                          "dynamic_batching { }"));
  auto srv = serve();
  auto order = order_of_four(srv, "unordered", 1000);
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order.back(), "r0");
}

// -- instances ---------------------------------------------------------------------------

TEST_F(scheduling, two_instances_run_two_requests_at_the_same_time) {
  auto g = gate_model("pair", 0, "instance_group [ { count: 2 kind: KIND_CPU } ]");
  auto srv = serve();
  response_collector c;
  srv.submit(make_request("pair", "a", {make_tensor("INPUT0", data_type::fp32, {4},
                                                   std::vector<float>(4, 1.0f))}),
            c.callback());
  srv.submit(make_request("pair", "b", {make_tensor("INPUT0", data_type::fp32, {4},
                                                   std::vector<float>(4, 2.0f))}),
            c.callback());
  // Both enter the backend while the gate is closed: they overlap.
  EXPECT_TRUE(g->wait_entered(2));
  EXPECT_EQ(g->max_concurrent(), 2u);
  g->open();
  ASSERT_TRUE(c.wait_finals(2));
  EXPECT_TRUE(c.final_of("a").error.is_ok());
  EXPECT_TRUE(c.final_of("b").error.is_ok());
}

TEST_F(scheduling, one_instance_runs_one_request_at_a_time) {
  auto g = gate_model("single", 0);
  auto srv = serve();
  response_collector c;
  for (const char* id : {"a", "b"})
    srv.submit(make_request("single", id, {make_tensor("INPUT0", data_type::fp32, {4},
                                                      std::vector<float>(4, 1.0f))}),
              c.callback());
  ASSERT_TRUE(g->wait_entered(1));
  EXPECT_FALSE(g->wait_entered(2, 100ms));
  g->open();
  ASSERT_TRUE(c.wait_finals(2));
  EXPECT_EQ(g->max_concurrent(), 1u);
}

// -- cancellation --------------------------------------------------------------------------

TEST_F(scheduling, cancelling_a_queued_request_answers_it_at_once) {
  auto g = gate_model("cq", 1);
  auto srv = serve();
  response_collector c;
  srv.submit(gate_request("cq", "running"), c.callback());
  ASSERT_TRUE(g->wait_entered(1));
  auto queued = srv.submit(gate_request("cq", "queued"), c.callback());
  ASSERT_TRUE(eventually([&] { return pending(srv, "cq") == 1; }));
  queued.cancel();
  ASSERT_TRUE(c.wait_finals(1));
  auto r = c.final_of("queued");
  EXPECT_EQ(r.error.code(), errc::cancelled) << r.error.to_string();
  EXPECT_TRUE(queued.completed());
  g->open();
  ASSERT_TRUE(c.wait_finals(2));
  EXPECT_TRUE(c.final_of("running").error.is_ok());
  EXPECT_EQ(g->batches().size(), 1u);
  EXPECT_EQ(c.of("queued").size(), 1u);
}

TEST_F(scheduling, cancelling_a_running_delayed_identity_request_stops_it) {
  repo_.add_model("slow", delayed_identity_config("slow", 30000));
  auto srv = serve();
  response_collector c;
  auto started = std::chrono::steady_clock::now();
  auto h = srv.submit(fp32_request("slow", "long"), c.callback());
  h.cancel();
  ASSERT_TRUE(c.wait_finals(1, 5s));
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  EXPECT_EQ(c.final_response().error.code(), errc::cancelled)
    << c.final_response().error.to_string();
  // The single instance is free again.
  auto next = infer_sync(srv, with_parameter(fp32_request("slow", "next"), "execute_delay_ms", 0),
                         5s);
  EXPECT_TRUE(next.error.is_ok()) << next.error.to_string();
}

TEST_F(scheduling, cancelling_a_running_decoupled_stream_ends_it_cancelled) {
  repo_.add_model("stream", R"(
name: "stream"
backend: "repeat"
max_batch_size: 0
model_transaction_policy { decoupled: true }
input [
  { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] },
  { name: "DELAY" data_type: TYPE_UINT32 dims: [ -1 ] }
]
output [
  { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] },
  { name: "IDX" data_type: TYPE_UINT32 dims: [ 1 ] }
]
)");
  auto srv = serve();
  response_collector c;
  auto h = srv.submit(make_request("stream", "s",
                                  {make_tensor("IN", data_type::int32, {3},
                                               std::vector<int32_t>{7, 8, 9}),
                                   make_tensor("DELAY", data_type::uint32, {3},
                                               std::vector<uint32_t>{0, 30000, 0})}),
                     c.callback());
  ASSERT_TRUE(c.wait_responses(1, 5s));
  EXPECT_FALSE(h.completed());
  h.cancel();
  ASSERT_TRUE(c.wait_finals(1, 5s));
  auto all = c.entries();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_TRUE(all[0].response.error.is_ok());
  EXPECT_EQ(values_of<int32_t>(*find_output(all[0].response.outputs, "OUT")),
            std::vector<int32_t>{7});
  EXPECT_TRUE(all[1].response.final);
  EXPECT_EQ(all[1].response.error.code(), errc::cancelled) << all[1].response.error.to_string();
}

// -- statistics and metrics ---------------------------------------------------------------

TEST_F(scheduling, statistics_count_successes_and_failures_exactly) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve();
  constexpr uint64_t successes = 5;
  constexpr uint64_t failures = 3;
  for (uint64_t i = 0; i < successes; ++i)
    ASSERT_TRUE(infer_sync(srv, fp32_request("m", "ok" + std::to_string(i))).error.is_ok());
  for (uint64_t i = 0; i < failures; ++i)
    ASSERT_FALSE(infer_sync(srv, fp32_request("m", "bad" + std::to_string(i), 15)).error.is_ok());
  // A batch's times are recorded once it returns, after its response went
  // out, so they too are awaited.
  ASSERT_TRUE(eventually([&] {
    auto s = srv.model_statistics("m");
    return s && (*s)[0].success.count == successes && (*s)[0].fail.count == failures
           && (*s)[0].execution_count == successes && (*s)[0].batch_stats.size() == 1
           && (*s)[0].batch_stats[0].compute_infer.count == successes;
  }));
  auto stats = srv.model_statistics("m", 1);
  ASSERT_TRUE(stats) << stats.error().to_string();
  ASSERT_EQ(stats->size(), 1u);
  const auto& s = (*stats)[0];
  EXPECT_EQ(s.name, "m");
  EXPECT_EQ(s.version, 1);
  EXPECT_EQ(s.success.count, successes);
  EXPECT_EQ(s.fail.count, failures);
  EXPECT_EQ(s.inference_count, successes);
  EXPECT_EQ(s.execution_count, successes);
  EXPECT_EQ(s.queue.count, s.success.count);
  EXPECT_EQ(s.compute_infer.count, successes);
  EXPECT_GT(s.last_inference, 0u);
  ASSERT_EQ(s.batch_stats.size(), 1u);
  EXPECT_EQ(s.batch_stats[0].batch_size, 1u);
  EXPECT_EQ(s.batch_stats[0].compute_infer.count, successes);
  // Statistics of an unknown model are an error.
  EXPECT_FALSE(srv.model_statistics("nope"));
}

TEST_F(scheduling, metrics_count_successes_and_disappear_after_unload) {
  repo_.add_model("m", identity_config("m", 8));
  auto o = options_for(repo_.str(), control_mode::explicit_);
  o.startup_models = {"m"};
  auto started = start(o);
  ASSERT_TRUE(started) << started.error().to_string();
  auto& srv = *started;
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(infer_sync(srv, fp32_request("m", std::to_string(i))).error.is_ok());
  ASSERT_TRUE(infer_sync(srv, fp32_request("m", "bad", 3)).error.code() == errc::invalid_argument);
  // Metrics are updated right after the final response reaches the client,
  // so they are awaited rather than read at once.
  ASSERT_TRUE(eventually([&] {
    auto t = srv.metrics_text();
    return t.find("nv_inference_request_success{model=\"m\",version=\"1\"} 3") != std::string::npos
           && metric_value(t, "nv_inference_request_failure",
                           "model=\"m\",reason=\"OTHER\",version=\"1\"")
                == 1.0;
  })) << srv.metrics_text();
  auto text = srv.metrics_text();
  EXPECT_EQ(metric_value(text, "nv_inference_count", "model=\"m\",version=\"1\""), 3.0);
  EXPECT_EQ(metric_value(text, "nv_inference_exec_count", "model=\"m\",version=\"1\""), 3.0);
  EXPECT_EQ(metric_value(text, "nv_inference_request_failure",
                         "model=\"m\",reason=\"OTHER\",version=\"1\""),
            1.0)
    << text;
  ASSERT_TRUE(srv.unload("m").is_ok());
  text = srv.metrics_text();
  EXPECT_EQ(text.find("model=\"m\""), std::string::npos) << text;
}

TEST_F(scheduling, series_are_gone_once_a_failed_load_or_an_unload_answers) {
  // The backend loads, but its instances cannot be created: the version's
  // series existed while it loaded and must be gone once load() answers.
  runtime::backends::registry::global().add(runtime::backends::backend_entry{
    "no_instances",
    [](const runtime::backends::model_context&)
      -> runtime::result<std::unique_ptr<runtime::backends::backend_model>> {
      class model final : public runtime::backends::backend_model {
       public:
        runtime::result<std::unique_ptr<runtime::backends::backend_instance>> create_instance(
          const runtime::backends::instance_context&) override {
          return runtime::internal_error("no instance today");
        }
      };
      return std::unique_ptr<runtime::backends::backend_model>{std::make_unique<model>()};
    },
    nullptr});
  repo_.add_model("m", identity_config("m", 8));
  repo_.add_model("f", gate_config("f", "no_instances", 0));
  auto o = options_for(repo_.str(), control_mode::explicit_);
  o.startup_models = {"m"};
  auto started = start(o);
  ASSERT_TRUE(started) << started.error().to_string();
  auto& srv = *started;
  for (int round = 0; round < 20; ++round) {
    auto st = srv.load("f");
    ASSERT_FALSE(st.is_ok());
    auto text = srv.metrics_text();
    ASSERT_EQ(text.find("model=\"f\""), std::string::npos) << "round " << round << ":\n" << text;
    ASSERT_NE(text.find("model=\"m\""), std::string::npos);
    // And a loaded model's series are gone as soon as its unload answers,
    // even while a client still holds one of its answered requests (whose
    // job keeps the version's statistics record alive).
    response_collector c;
    auto kept = srv.submit(fp32_request("m", "kept"), c.callback());
    ASSERT_TRUE(c.wait_finals(1));
    ASSERT_TRUE(srv.unload("m").is_ok());
    text = srv.metrics_text();
    ASSERT_EQ(text.find("model=\"m\""), std::string::npos) << "round " << round << ":\n" << text;
    ASSERT_TRUE(srv.load("m").is_ok());
    ASSERT_NE(srv.metrics_text().find("nv_inference_count{model=\"m\",version=\"1\"} 0"),
              std::string::npos);
  }
}

} // namespace
} // namespace conch::tests
