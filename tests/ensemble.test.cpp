// Ensembles (platform "ensemble"): steps run as a data flow through the
// server's own request path, composing models load with the ensemble, the
// ensemble is ready only while they are, and a stop drains ensembles before
// the models they call.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/model_configs.hpp"
#include "support/response_collector.hpp"
#include "support/server_fixture.hpp"
#include "support/temp_repository.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

using runtime::data_type;
using runtime::errc;

const std::string add_sub_config = R"(name: "add_sub"
backend: "add_sub"
max_batch_size: 8
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] },
        { name: "INPUT1" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] },
         { name: "OUTPUT1" data_type: TYPE_FP32 dims: [ 4 ] } ]
)";

// IN0, IN1 -> add_sub -> SUM, (diff) -> ident -> DIFF
const std::string pipeline_config = R"(name: "pipeline"
platform: "ensemble"
max_batch_size: 8
input [ { name: "IN0" data_type: TYPE_FP32 dims: [ 4 ] },
        { name: "IN1" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "SUM" data_type: TYPE_FP32 dims: [ 4 ] },
         { name: "DIFF" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling { step [
  { model_name: "add_sub" model_version: -1
    input_map { key: "INPUT0" value: "IN0" } input_map { key: "INPUT1" value: "IN1" }
    output_map { key: "OUTPUT0" value: "SUM" } output_map { key: "OUTPUT1" value: "diff" } },
  { model_name: "ident" model_version: -1
    input_map { key: "INPUT0" value: "diff" } output_map { key: "OUTPUT0" value: "DIFF" } } ] }
)";

// IN -> slow -> mid -> slow_too -> OUT
const std::string slow_config = R"(name: "slow_pipeline"
platform: "ensemble"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling { step [
  { model_name: "slow" input_map { key: "INPUT0" value: "IN" }
    output_map { key: "OUTPUT0" value: "mid" } },
  { model_name: "slow_too" input_map { key: "INPUT0" value: "mid" }
    output_map { key: "OUTPUT0" value: "OUT" } } ] }
)";

// IN (any length) -> ident (4 elements): a step that refuses what the
// ensemble accepted.
const std::string loose_config = R"(name: "loose"
platform: "ensemble"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]
ensemble_scheduling { step [
  { model_name: "ident" input_map { key: "INPUT0" value: "IN" }
    output_map { key: "OUTPUT0" value: "OUT" } } ] }
)";

const std::string orphan_config = R"(name: "orphan"
platform: "ensemble"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling { step [
  { model_name: "missing" input_map { key: "INPUT0" value: "IN" }
    output_map { key: "OUTPUT0" value: "OUT" } } ] }
)";

// Two ensembles that call each other.
std::string cyclic_config(const std::string& name, const std::string& other) {
  return "name: \"" + name + "\"\nplatform: \"ensemble\"\nmax_batch_size: 8\n"
         "input [ { name: \"INPUT0\" data_type: TYPE_FP32 dims: [ 4 ] } ]\n"
         "output [ { name: \"OUTPUT0\" data_type: TYPE_FP32 dims: [ 4 ] } ]\n"
         "ensemble_scheduling { step [ { model_name: \"" + other + "\"\n"
         "  input_map { key: \"INPUT0\" value: \"INPUT0\" }\n"
         "  output_map { key: \"OUTPUT0\" value: \"OUTPUT0\" } } ] }\n";
}

class ensemble : public server_fixture {
 protected:
  void SetUp() override {
    repo_.add_model("add_sub", add_sub_config);
    repo_.add_model("ident", identity_config("ident", 8, "", 4));
    const std::string delay = "parameters { key: \"execute_delay_ms\" value: { string_value: "
                              "\"0\" } }\n";
    repo_.add_model("slow", identity_config("slow", 8, delay, 4));
    repo_.add_model("slow_too", identity_config("slow_too", 8, delay, 4));
    repo_.add_model("pipeline", pipeline_config);
    repo_.add_model("slow_pipeline", slow_config);
    repo_.add_model("loose", loose_config);
    repo_.add_model("orphan", orphan_config);
    repo_.add_model("cycle_a", cyclic_config("cycle_a", "cycle_b"));
    repo_.add_model("cycle_b", cyclic_config("cycle_b", "cycle_a"));
    repo_.add_model("narcissus", cyclic_config("narcissus", "narcissus"));
  }

  actors::server start_explicit(std::vector<std::string> models) {
    auto o = options_for(repo_.str(), actors::control_mode::explicit_);
    o.startup_models = std::move(models);
    auto s = start(o);
    EXPECT_TRUE(s) << s.error().to_string();
    return *s;
  }

  static runtime::inference_request pipeline_request(std::vector<float> a, std::vector<float> b) {
    return make_request("pipeline", "p1",
                        {make_tensor("IN0", data_type::fp32, {1, 4}, a),
                         make_tensor("IN1", data_type::fp32, {1, 4}, b)});
  }

  static uint64_t executions(actors::server& srv, const std::string& model) {
    auto stats = srv.model_statistics(model);
    return stats && !stats->empty() ? (*stats)[0].execution_count : 0;
  }

  temp_repository repo_;
};

TEST_F(ensemble, runs_its_steps_and_returns_the_ensemble_outputs) {
  auto srv = start_explicit({"pipeline"});
  auto r = infer_sync(srv, pipeline_request({1, 2, 3, 4}, {10, 20, 30, 40}));
  ASSERT_TRUE(r.error) << r.error.to_string();
  EXPECT_EQ(r.id, "p1");
  const auto* sum = find_output(r.outputs, "SUM");
  const auto* diff = find_output(r.outputs, "DIFF");
  ASSERT_TRUE(sum && diff);
  EXPECT_EQ(values_of<float>(*sum), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(values_of<float>(*diff), (std::vector<float>{-9, -18, -27, -36}));
  EXPECT_EQ(sum->shape, (runtime::shape_type{1, 4}));
  // One execution for the ensemble and for each composing model.
  EXPECT_EQ(executions(srv, "pipeline"), 1u);
  EXPECT_EQ(executions(srv, "add_sub"), 1u);
  EXPECT_EQ(executions(srv, "ident"), 1u);

  auto only = pipeline_request({1, 1, 1, 1}, {1, 1, 1, 1});
  only.requested_outputs = {"DIFF"};
  auto r2 = infer_sync(srv, std::move(only));
  ASSERT_TRUE(r2.error) << r2.error.to_string();
  ASSERT_EQ(r2.outputs.size(), 1u);
  EXPECT_EQ(r2.outputs[0].name, "DIFF");
}

TEST_F(ensemble, explicit_load_brings_its_composing_models_and_readiness_follows_them) {
  auto srv = start_explicit({});
  EXPECT_FALSE(srv.model_ready("ident"));
  ASSERT_TRUE(srv.load("pipeline"));
  EXPECT_TRUE(srv.model_ready("pipeline"));
  EXPECT_TRUE(srv.model_ready("add_sub"));
  EXPECT_TRUE(srv.model_ready("ident"));

  ASSERT_TRUE(srv.unload("ident"));
  EXPECT_FALSE(srv.model_ready("pipeline"));
  auto r = infer_sync(srv, pipeline_request({1, 2, 3, 4}, {1, 2, 3, 4}));
  EXPECT_EQ(r.error.message(), "Request for unknown model: 'pipeline' has no available versions");

  ASSERT_TRUE(srv.load("ident"));
  EXPECT_TRUE(srv.model_ready("pipeline"));
  EXPECT_TRUE(infer_sync(srv, pipeline_request({1, 2, 3, 4}, {1, 2, 3, 4})).error);
}

TEST_F(ensemble, unload_dependents_takes_the_models_loaded_only_for_it_and_no_longer_run) {
  auto srv = start_explicit({});
  ASSERT_TRUE(srv.load("pipeline")); // add_sub and ident come with it
  ASSERT_TRUE(srv.load("loose"));    // runs ident too
  // Without dependents the composing models stay.
  ASSERT_TRUE(srv.load("slow_pipeline"));
  ASSERT_TRUE(srv.unload("slow_pipeline"));
  EXPECT_TRUE(srv.model_ready("slow"));
  EXPECT_TRUE(srv.model_ready("slow_too"));

  ASSERT_TRUE(srv.unload("pipeline", true));
  EXPECT_FALSE(srv.model_ready("pipeline"));
  EXPECT_FALSE(srv.model_ready("add_sub"));
  EXPECT_TRUE(srv.model_ready("ident")); // loose still runs it
  EXPECT_TRUE(srv.model_ready("loose"));

  ASSERT_TRUE(srv.unload("loose", true));
  EXPECT_FALSE(srv.model_ready("ident"));
  // slow and slow_too were loaded for an ensemble that has gone without them.
  EXPECT_TRUE(srv.model_ready("slow"));
}

TEST_F(ensemble, unload_dependents_leaves_a_model_that_was_loaded_by_name) {
  auto srv = start_explicit({"add_sub"});
  ASSERT_TRUE(srv.load("pipeline"));
  ASSERT_TRUE(srv.load("ident")); // by name now, though the ensemble loaded it first
  ASSERT_TRUE(srv.unload("pipeline", true));
  EXPECT_TRUE(srv.model_ready("add_sub"));
  EXPECT_TRUE(srv.model_ready("ident"));
  EXPECT_TRUE(infer_sync(srv, make_request("ident", "i1",
                                           {make_tensor("INPUT0", data_type::fp32, {1, 4},
                                                        std::vector<float>{1, 2, 3, 4})}))
                .error);

  // Unloaded and loaded again as a composing model only, it goes this time.
  ASSERT_TRUE(srv.unload("ident"));
  ASSERT_TRUE(srv.load("pipeline"));
  ASSERT_TRUE(srv.unload("pipeline", true));
  EXPECT_FALSE(srv.model_ready("ident"));
  EXPECT_TRUE(srv.model_ready("add_sub"));
}

TEST_F(ensemble, unload_dependents_goes_through_nested_ensembles) {
  repo_.add_model("outer", R"(name: "outer"
platform: "ensemble"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling { step [
  { model_name: "slow_pipeline" input_map { key: "IN" value: "IN" }
    output_map { key: "OUT" value: "OUT" } } ] }
)");
  auto srv = start_explicit({"outer"});
  EXPECT_TRUE(srv.model_ready("slow_too"));
  ASSERT_TRUE(srv.unload("outer", true));
  EXPECT_FALSE(srv.model_ready("slow_pipeline"));
  EXPECT_FALSE(srv.model_ready("slow"));
  EXPECT_FALSE(srv.model_ready("slow_too"));
}

TEST_F(ensemble, a_step_error_ends_the_request_with_that_error) {
  auto srv = start_explicit({"loose"});
  auto r = infer_sync(srv, make_request("loose", "l", {make_tensor("IN", data_type::fp32, {1, 3},
                                                                   std::vector<float>{1, 2, 3})}));
  EXPECT_EQ(r.error.code(), errc::invalid_argument);
  EXPECT_EQ(r.error.message().rfind("in ensemble 'loose', ", 0), 0u) << r.error.message();
  auto ok = infer_sync(srv, make_request("loose", "l", {make_tensor("IN", data_type::fp32, {1, 4},
                                                                    std::vector<float>{1, 2, 3, 4})}));
  EXPECT_TRUE(ok.error) << ok.error.to_string();
}

TEST_F(ensemble, a_missing_composing_model_fails_the_load) {
  auto srv = start_explicit({});
  auto st = srv.load("orphan");
  EXPECT_FALSE(st);
  EXPECT_NE(st.message().find("ensemble orphan contains models that are not available or "
                              "ambiguous: missing"),
            std::string::npos)
    << st.message();
  EXPECT_FALSE(srv.model_ready("orphan"));
}

TEST_F(ensemble, ensembles_that_call_each_other_fail_to_load_rather_than_wait) {
  auto srv = start_explicit({});
  auto st = srv.load("cycle_a");
  EXPECT_FALSE(st);
  EXPECT_NE(st.message().find("contains models that are not available or ambiguous: cycle_b"),
            std::string::npos)
    << st.message();
  auto index = srv.repository_index();
  ASSERT_TRUE(index);
  bool found = false;
  for (const auto& e : *index)
    if (e.name == "cycle_b") {
      found = true;
      EXPECT_EQ(e.reason, "circular dependency between ensembles: cycle_b -> cycle_a -> cycle_b");
    }
  EXPECT_TRUE(found);
  EXPECT_EQ(srv.load("narcissus").message(),
            "circular dependency between ensembles: narcissus -> narcissus");
  EXPECT_TRUE(srv.load("pipeline")); // the repository goes on serving
}

TEST_F(ensemble, cancelling_cancels_the_step_running) {
  auto srv = start_explicit({"slow_pipeline"});
  auto request = make_request("slow_pipeline", "s",
                              {make_tensor("IN", data_type::fp32, {1, 4},
                                           std::vector<float>{1, 2, 3, 4})});
  request.parameters.push_back({"execute_delay_ms", int64_t{10000}});
  response_collector c;
  auto handle = srv.submit(std::move(request), c.callback());
  ASSERT_TRUE(eventually([&] { return executions(srv, "slow") == 1; }));
  handle.cancel();
  ASSERT_TRUE(c.wait_finals(1, std::chrono::seconds{5}));
  EXPECT_EQ(c.final_response().error.code(), errc::cancelled);
  EXPECT_EQ(executions(srv, "slow_too"), 0u);
}

TEST_F(ensemble, its_compute_statistics_are_the_sums_of_its_steps) {
  auto srv = start_explicit({"slow_pipeline"});
  auto request = make_request("slow_pipeline", "s",
                              {make_tensor("IN", data_type::fp32, {1, 4},
                                           std::vector<float>{1, 2, 3, 4})});
  request.parameters.push_back({"execute_delay_ms", int64_t{60}});
  ASSERT_TRUE(infer_sync(srv, std::move(request)).error);
  auto stats = srv.model_statistics("slow_pipeline");
  ASSERT_TRUE(stats && stats->size() == 1);
  const auto& s = (*stats)[0];
  EXPECT_EQ(s.success.count, 1u);
  EXPECT_EQ(s.compute_infer.count, 1u);
  // Two steps of 60 ms each (the identity waits before it reads its
  // inputs: compute_input), as Triton sums them.
  auto compute = s.compute_input.ns + s.compute_infer.ns + s.compute_output.ns;
  EXPECT_GE(compute, 120'000'000u);
  EXPECT_LE(compute, s.success.ns);
}

TEST_F(ensemble, a_stop_lets_the_requests_in_flight_finish_every_step) {
  auto srv = start_explicit({"slow_pipeline"});
  auto request = make_request("slow_pipeline", "s",
                              {make_tensor("IN", data_type::fp32, {1, 4},
                                           std::vector<float>{1, 2, 3, 4})});
  request.parameters.push_back({"execute_delay_ms", int64_t{300}});
  response_collector c;
  srv.submit(std::move(request), c.callback());
  ASSERT_TRUE(eventually([&] { return executions(srv, "slow") == 1; }));
  // The second step starts only after the stop began: its model still
  // takes it, because the ensemble drains first.
  EXPECT_TRUE(srv.stop());
  ASSERT_TRUE(c.wait_finals(1, std::chrono::seconds{1}));
  auto r = c.final_response();
  ASSERT_TRUE(r.error) << r.error.to_string();
  EXPECT_EQ(values_of<float>(r.outputs.at(0)), (std::vector<float>{1, 2, 3, 4}));
}

} // namespace
} // namespace conch::tests
