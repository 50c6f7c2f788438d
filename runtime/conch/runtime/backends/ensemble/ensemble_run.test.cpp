#include "conch/runtime/backends/ensemble/ensemble_run.hpp"

#include <gtest/gtest.h>

#include "conch/runtime/backends/ensemble/ensemble_test_support.hpp"

using namespace conch::runtime;
using namespace conch::runtime::backends;
using namespace conch::runtime::backends::test_support;
using namespace conch::runtime::backends::ensemble::test_support;

namespace {

using fp32s = std::vector<float>;

tensor fp32(const std::string& name, const fp32s& values) {
  return make_tensor(name, data_type::fp32, {static_cast<int64_t>(values.size())}, values);
}

void common_respond(inference_job& job, std::vector<tensor> outputs) {
  inference_response r;
  r.outputs = std::move(outputs);
  r.final = true;
  job.respond(std::move(r));
}

/// A model answering y = f(x) at once.
fake_gateway::model_fn unary(float (*f)(float)) {
  return [f](job_ptr job) {
    auto x = values_of<float>(*job->request().input("x"));
    for (auto& v : x)
      v = f(v);
    common_respond(*job, {fp32("y", x)});
  };
}

struct ensemble_fixture : ::testing::Test {
  std::shared_ptr<fake_gateway> models = std::make_shared<fake_gateway>();
  std::unique_ptr<backend_model> model;
  std::unique_ptr<backend_instance> instance;

  status load(const inference::ModelConfig& config) {
    auto loaded = backends::test_support::load(config, models);
    if (!loaded)
      return loaded.error();
    EXPECT_FALSE(loaded->model->blocking());
    model = std::move(loaded->model);
    instance = std::move(loaded->instance);
    return status::ok();
  }

  std::shared_ptr<response_log> run(inference_request request, job_ptr* job_out = nullptr) {
    auto log = std::make_shared<response_log>();
    auto job = make_job(std::move(request), log);
    if (job_out)
      *job_out = job;
    batch jobs{job};
    instance->execute(jobs);
    return log;
  }
};

float twice(float v) { return 2 * v; }
float plus_one(float v) { return v + 1; }

inference_request request_of(tensor in) {
  inference_request r;
  r.model_name = "ens";
  r.id = "req-7";
  r.priority = 2;
  r.inputs.push_back(std::move(in));
  return r;
}

} // namespace

TEST_F(ensemble_fixture, a_pipeline_feeds_each_step_the_last_ones_output) {
  auto config = ensemble_config("ens", {"IN"}, {"OUT"});
  add_step(config, "double", {{"x", "IN"}}, {{"y", "mid"}});
  add_step(config, "inc", {{"x", "mid"}}, {{"y", "OUT"}});
  std::vector<inference_request> seen;
  models->add(model_config("double", {"x"}, {"y"}), [&seen](job_ptr job) {
    seen.push_back(job->request());
    unary(twice)(job);
  });
  models->add(model_config("inc", {"x"}, {"y"}), unary(plus_one));
  ASSERT_TRUE(load(config));
  auto log = run(request_of(fp32("IN", {1, 2, 3})));
  ASSERT_EQ(log->responses.size(), 1u);
  const auto& r = log->responses[0];
  ASSERT_TRUE(r.error) << r.error.to_string();
  EXPECT_TRUE(r.final);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].name, "OUT");
  EXPECT_EQ(values_of<float>(r.outputs[0]), (fp32s{3, 5, 7}));
  EXPECT_EQ(models->submitted, (std::vector<std::string>{"double", "inc"}));
  // A step's request carries the ensemble request's id and priority, and
  // asks for the outputs the ensemble maps.
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].id, "req-7");
  EXPECT_EQ(seen[0].priority, 2u);
  EXPECT_EQ(seen[0].inputs.at(0).name, "x");
  EXPECT_EQ(seen[0].requested_outputs, (std::vector<std::string>{"y"}));
}

TEST_F(ensemble_fixture, a_step_that_reads_two_tensors_waits_for_both) {
  auto config = ensemble_config("ens", {"IN"}, {"OUT"});
  add_step(config, "double", {{"x", "IN"}}, {{"y", "l"}});
  add_step(config, "inc", {{"x", "IN"}}, {{"y", "r"}});
  add_step(config, "sub", {{"a", "l"}, {"b", "r"}}, {{"y", "OUT"}});
  // "inc" answers only when the test says so.
  job_ptr held;
  models->add(model_config("double", {"x"}, {"y"}), unary(twice));
  models->add(model_config("inc", {"x"}, {"y"}), [&held](job_ptr job) { held = job; });
  models->add(model_config("sub", {"a", "b"}, {"y"}), [](job_ptr job) {
    auto a = values_of<float>(*job->request().input("a"));
    auto b = values_of<float>(*job->request().input("b"));
    for (size_t i = 0; i < a.size(); ++i)
      a[i] -= b[i];
    common_respond(*job, {fp32("y", a)});
  });
  ASSERT_TRUE(load(config));
  auto log = run(request_of(fp32("IN", {4, 10})));
  EXPECT_TRUE(log->responses.empty());
  EXPECT_EQ(models->submitted, (std::vector<std::string>{"double", "inc"}));
  ASSERT_TRUE(held);
  unary(plus_one)(held);
  ASSERT_EQ(log->responses.size(), 1u);
  ASSERT_TRUE(log->responses[0].error) << log->responses[0].error.to_string();
  EXPECT_EQ(values_of<float>(log->responses[0].outputs.at(0)), (fp32s{3, 9}));
}

TEST_F(ensemble_fixture, a_failing_step_ends_the_request_with_its_error) {
  auto config = ensemble_config("ens", {"IN"}, {"OUT"});
  add_step(config, "broken", {{"x", "IN"}}, {{"y", "mid"}});
  add_step(config, "inc", {{"x", "mid"}}, {{"y", "OUT"}});
  models->add(model_config("broken", {"x"}, {"y"}),
              [](job_ptr job) { job->fail(invalid_argument("bad input x")); });
  models->add(model_config("inc", {"x"}, {"y"}), unary(plus_one));
  ASSERT_TRUE(load(config));
  auto log = run(request_of(fp32("IN", {1})));
  ASSERT_EQ(log->responses.size(), 1u);
  const auto& r = log->responses[0];
  EXPECT_EQ(r.error.code(), errc::invalid_argument);
  EXPECT_EQ(r.error.message(), "in ensemble 'ens', bad input x");
  EXPECT_EQ(models->submitted, (std::vector<std::string>{"broken"}));
}

TEST_F(ensemble_fixture, an_output_no_step_returned_is_triton_s_deadlock_error) {
  auto config = ensemble_config("ens", {"IN"}, {"OUT"});
  add_step(config, "silent", {{"x", "IN"}}, {{"y", "OUT"}});
  models->add(model_config("silent", {"x"}, {"y"}),
              [](job_ptr job) { common_respond(*job, {}); });
  ASSERT_TRUE(load(config));
  auto log = run(request_of(fp32("IN", {1})));
  ASSERT_EQ(log->responses.size(), 1u);
  EXPECT_EQ(log->responses[0].error.code(), errc::invalid_argument);
  EXPECT_NE(log->responses[0].error.message().find("unexpected deadlock"), std::string::npos);
}

TEST_F(ensemble_fixture, cancelling_the_request_cancels_the_steps_running) {
  auto config = ensemble_config("ens", {"IN"}, {"OUT"});
  add_step(config, "slow", {{"x", "IN"}}, {{"y", "mid"}});
  add_step(config, "inc", {{"x", "mid"}}, {{"y", "OUT"}});
  job_ptr held;
  models->add(model_config("slow", {"x"}, {"y"}), [&held](job_ptr job) { held = job; });
  models->add(model_config("inc", {"x"}, {"y"}), unary(plus_one));
  ASSERT_TRUE(load(config));
  job_ptr parent;
  auto log = run(request_of(fp32("IN", {1})), &parent);
  ASSERT_TRUE(held);
  parent->cancel();
  EXPECT_TRUE(held->is_cancelled());
  EXPECT_TRUE(log->responses.empty()); // the step still runs
  // The step answers as a cancelled step would.
  held->fail(cancelled("request cancelled"), failure_kind::cancelled);
  ASSERT_EQ(log->responses.size(), 1u);
  EXPECT_EQ(log->responses[0].error.code(), errc::cancelled);
  EXPECT_EQ(parent->failure(), failure_kind::cancelled);
  EXPECT_EQ(models->submitted, (std::vector<std::string>{"slow"}));
}

TEST_F(ensemble_fixture, a_decoupled_step_streams_through_a_decoupled_ensemble) {
  auto config = ensemble_config("ens", {"IN"}, {"OUT"});
  config.mutable_model_transaction_policy()->set_decoupled(true);
  add_step(config, "repeat", {{"x", "IN"}}, {{"y", "mid"}});
  add_step(config, "inc", {{"x", "mid"}}, {{"y", "OUT"}});
  auto repeat = model_config("repeat", {"x"}, {"y"});
  repeat.mutable_model_transaction_policy()->set_decoupled(true);
  // Three responses, one per element, then an empty final one.
  models->add(repeat, [](job_ptr job) {
    for (auto v : values_of<float>(*job->request().input("x"))) {
      inference_response r;
      r.outputs.push_back(fp32("y", {v}));
      job->respond(std::move(r));
    }
    inference_response last;
    last.final = true;
    job->respond(std::move(last));
  });
  models->add(model_config("inc", {"x"}, {"y"}), unary(plus_one));
  ASSERT_TRUE(load(config));
  auto log = run(request_of(fp32("IN", {10, 20, 30})));
  ASSERT_EQ(log->responses.size(), 4u);
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(log->responses[i].error);
    EXPECT_FALSE(log->responses[i].final);
    EXPECT_EQ(values_of<float>(log->responses[i].outputs.at(0)),
              (fp32s{static_cast<float>(10 * (i + 1) + 1)}));
  }
  EXPECT_TRUE(log->responses[3].final);
  EXPECT_TRUE(log->responses[3].outputs.empty());
  EXPECT_EQ(models->submitted, (std::vector<std::string>{"repeat", "inc", "inc", "inc"}));
}

TEST_F(ensemble_fixture, outputs_follow_the_requested_outputs_and_allocator) {
  auto config = ensemble_config("ens", {"IN"}, {"OUT", "MID"});
  add_step(config, "double", {{"x", "IN"}}, {{"y", "MID"}});
  add_step(config, "inc", {{"x", "MID"}}, {{"y", "OUT"}});
  models->add(model_config("double", {"x"}, {"y"}), unary(twice));
  models->add(model_config("inc", {"x"}, {"y"}), unary(plus_one));
  ASSERT_TRUE(load(config));
  auto request = request_of(fp32("IN", {1}));
  request.requested_outputs = {"MID"};
  auto allocator = std::make_shared<recording_allocator>();
  request.allocator = allocator;
  auto log = run(std::move(request));
  ASSERT_EQ(log->responses.size(), 1u);
  ASSERT_TRUE(log->responses[0].error) << log->responses[0].error.to_string();
  ASSERT_EQ(log->responses[0].outputs.size(), 1u);
  EXPECT_EQ(log->responses[0].outputs[0].name, "MID");
  EXPECT_EQ(values_of<float>(log->responses[0].outputs[0]), (fp32s{2}));
  EXPECT_EQ(allocator->names, (std::vector<std::string>{"MID"}));
}

TEST_F(ensemble_fixture, loading_checks_the_composing_models) {
  auto config = ensemble_config("ens", {"IN"}, {"OUT"});
  add_step(config, "absent", {{"x", "IN"}}, {{"y", "OUT"}});
  auto st = load(config);
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_EQ(st.message(), "ensemble ens contains models that are not available or ambiguous: absent");
}

TEST_F(ensemble_fixture, a_request_cancelled_before_it_starts_runs_no_step) {
  auto config = ensemble_config("ens", {"IN"}, {"OUT"});
  add_step(config, "inc", {{"x", "IN"}}, {{"y", "OUT"}});
  models->add(model_config("inc", {"x"}, {"y"}), unary(plus_one));
  ASSERT_TRUE(load(config));
  auto log = std::make_shared<response_log>();
  auto job = make_job(request_of(fp32("IN", {1})), log);
  job->cancel();
  batch jobs{job};
  instance->execute(jobs);
  ASSERT_EQ(log->responses.size(), 1u);
  EXPECT_EQ(log->responses[0].error.code(), errc::cancelled);
  EXPECT_TRUE(models->submitted.empty());
  job->cancel(); // again, after the answer: nothing happens
  EXPECT_EQ(log->responses.size(), 1u);
}
