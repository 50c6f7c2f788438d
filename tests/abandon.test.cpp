// Model code that never returns, with requests in flight in-process, over
// HTTP and over gRPC (unary and streaming): the exit timeout still bounds
// stop(), every request is answered, the stuck threads are abandoned and
// counted, and the actor system still shuts down.

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <gtest/gtest.h>

#include "conch/actors/grpc_frontend.hpp"
#include "conch/actors/http_frontend.hpp"
#include "conch/actors/server_host.hpp"
#include "conch/runtime/logging/logger.hpp"
#include "conch/runtime/statistics/abandoned_threads.hpp"
#include "support/destroy_within.hpp"
#include "support/gate_backend.hpp"
#include "support/grpc_fixture.hpp"
#include "support/grpc_requests.hpp"
#include "support/http_fixture.hpp"
#include "support/metrics_text.hpp"
#include "support/response_collector.hpp"
#include "support/stuck_backend.hpp"
#include "support/temp_repository.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

using namespace std::chrono_literals;
using runtime::errc;
using runtime::statistics::abandoned_threads;

constexpr const char* stuck_instances = "instance_group [ { count: 4 kind: KIND_CPU } ]";

inference::ModelInferRequest stuck_grpc_request() {
  inference::ModelInferRequest req;
  req.set_model_name("stuck");
  add_input(req, "INPUT0", "FP32", {4});
  req.add_raw_input_contents(raw_bytes(std::vector<float>(4, 1.0f)));
  return req;
}

const std::string stuck_http_body
  = R"({"inputs":[{"name":"INPUT0","datatype":"FP32","shape":[4],"data":[1,2,3,4]}]})";

// The gRPC status of one unary call, or of the first answer on a stream.
struct grpc_outcome {
  grpc::StatusCode code = grpc::StatusCode::OK;
  std::string stream_error;
};

TEST(abandon, model_code_that_never_returns_does_not_hold_the_stop) {
  auto latch = std::make_shared<stuck_latch>();
  register_stuck_backend("stuck_cc", latch);
  temp_repository repo;
  repo.add_model("stuck", gate_config("stuck", "stuck_cc", 0, stuck_instances));
  repo.add_model("idle", gate_config("idle", "stuck_cc", 0));
  caf::actor_system_config cfg;
  actors::configure_actor_system(cfg);
  auto sys = std::make_unique<caf::actor_system>(cfg);
  auto o = options_for(repo.str());
  o.exit_timeout = 1;
  auto abandoned_before = abandoned_threads::total();
  auto running_before = abandoned_threads::running();
  std::mutex log_mu;
  std::vector<std::string> errors;
  runtime::logging::set_log_callback(
    [&](runtime::logging::log_level level, std::string_view, int, std::string_view,
        std::string_view message) {
      std::lock_guard<std::mutex> guard{log_mu};
      if (level == runtime::logging::log_level::error)
        errors.emplace_back(message);
    });
  response_collector c;
  {
    auto srv = actors::server::start(*sys, o);
    ASSERT_TRUE(srv) << srv.error().to_string();
    actors::http_frontend http{*srv, test_http_options()};
    ASSERT_TRUE(http.start());
    actors::grpc_frontend grpc{*srv, test_grpc_options()};
    ASSERT_TRUE(grpc.start());
    auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(grpc.port()),
                                       grpc::InsecureChannelCredentials());
    auto stub = inference::GRPCInferenceService::NewStub(channel);

    auto handle = srv->submit(fp32_request("stuck", "inprocess", 4, 0.0f, false), c.callback());
    auto http_answer = std::async(std::launch::async, [port = http.port()] {
      return http_call(port, "POST", "/v2/models/stuck/infer", stuck_http_body);
    });
    auto unary = std::async(std::launch::async, [&stub] {
      inference::ModelInferResponse res;
      auto st = stub->ModelInfer(client_context().get(), stuck_grpc_request(), &res);
      return grpc_outcome{st.error_code(), {}};
    });
    auto streaming = std::async(std::launch::async, [&stub] {
      auto ctx = client_context();
      auto stream = stub->ModelStreamInfer(ctx.get());
      grpc_outcome out;
      inference::ModelStreamInferResponse res;
      if (stream->Write(stuck_grpc_request()) && stream->Read(&res))
        out.stream_error = res.error_message();
      out.code = stream->Finish().error_code();
      return out;
    });
    ASSERT_TRUE(latch->wait_entered(4)) << "the four requests never reached the model";

    auto begin = std::chrono::steady_clock::now();
    auto st = srv->stop();
    auto took = std::chrono::steady_clock::now() - begin;
    EXPECT_EQ(st.code(), errc::internal) << st.to_string();
    EXPECT_EQ(st.message(), "Exit timeout expired. Exiting immediately.");
    EXPECT_LT(took, 5s);

    // Every request heard an answer; none waits for the model.
    ASSERT_TRUE(c.wait_finals(1, 1s));
    EXPECT_EQ(c.final_response().error.code(), errc::unavailable)
      << c.final_response().error.to_string();
    EXPECT_TRUE(handle.completed());
    ASSERT_EQ(http_answer.wait_for(5s), std::future_status::ready);
    auto http_result = http_answer.get();
    // An error answer, or the connection closed as the frontend was aborted.
    if (http_result) {
      EXPECT_NE(http_result->status, 200) << http_result->body;
    }
    ASSERT_EQ(unary.wait_for(5s), std::future_status::ready);
    auto unary_code = unary.get().code;
    EXPECT_TRUE(unary_code == grpc::StatusCode::UNAVAILABLE
                || unary_code == grpc::StatusCode::CANCELLED)
      << unary_code;
    ASSERT_EQ(streaming.wait_for(5s), std::future_status::ready);
    auto stream_result = streaming.get();
    EXPECT_TRUE(!stream_result.stream_error.empty() || stream_result.code != grpc::StatusCode::OK);

    EXPECT_EQ(abandoned_threads::total() - abandoned_before, 4);
    EXPECT_EQ(abandoned_threads::running() - running_before, 4);
    // The stuck version is named, UNAVAILABLE with its reason.
    runtime::logging::set_log_callback({});
    std::lock_guard<std::mutex> guard{log_mu};
    EXPECT_NE(std::find_if(errors.begin(), errors.end(),
                           [](const std::string& m) {
                             return m.find("'stuck' version 1 did not finish before the exit "
                                           "timeout")
                                    != std::string::npos;
                           }),
              errors.end());
    // A version with nothing running is not blamed.
    for (const auto& m : errors)
      EXPECT_EQ(m.find("'idle'"), std::string::npos) << m;
  }
  // Nothing of the actor system waits for the stuck threads.
  destroy_within(std::move(sys), 10s);
  // Once their code returns at last, the abandoned threads end by themselves.
  latch->release();
  EXPECT_TRUE(eventually([&] { return abandoned_threads::running() == running_before; }));
}

TEST(abandon, a_server_host_with_a_stuck_model_is_destroyed_on_time) {
  // The in-process case of a Python program: server_host owns its actor
  // system, and destroying it (interpreter exit) must not wait either.
  auto latch = std::make_shared<stuck_latch>();
  register_stuck_backend("stuck_host", latch);
  temp_repository repo;
  repo.add_model("stuck", gate_config("stuck", "stuck_host", 0));
  auto o = options_for(repo.str());
  o.exit_timeout = 1;
  auto host = actors::server_host::start(o);
  ASSERT_TRUE(host) << host.error().to_string();
  response_collector c;
  (*host)->server().submit(fp32_request("stuck", "r", 4, 0.0f, false), c.callback());
  ASSERT_TRUE(latch->wait_entered(1));
  auto begin = std::chrono::steady_clock::now();
  host->reset();
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 5s);
  ASSERT_TRUE(c.wait_finals(1, 1s));
  EXPECT_EQ(c.final_response().error.code(), errc::unavailable);
  latch->release();
}

TEST(abandon, a_request_handed_on_behind_a_stuck_one_is_answered_at_the_exit_timeout) {
  // The one instance of a blocking backend holds its next request on its
  // worker while one runs (model_scheduler's prefetch); when that one never
  // returns, the request behind it is given up on with it.
  auto latch = std::make_shared<stuck_latch>();
  register_stuck_backend("stuck_handed_on", latch);
  temp_repository repo;
  repo.add_model("stuck", gate_config("stuck", "stuck_handed_on", 0));
  auto o = options_for(repo.str());
  o.exit_timeout = 1;
  auto host = actors::server_host::start(o);
  ASSERT_TRUE(host) << host.error().to_string();
  auto& srv = (*host)->server();
  response_collector c;
  srv.submit(fp32_request("stuck", "first", 4, 0.0f, false), c.callback());
  ASSERT_TRUE(latch->wait_entered(1));
  srv.submit(fp32_request("stuck", "behind", 4, 0.0f, false), c.callback());
  ASSERT_TRUE(eventually([&] {
    return metric_value(srv.metrics_text(), "nv_inference_pending_request_count",
                        "model=\"stuck\",version=\"1\"")
           == 1.0;
  }));
  auto begin = std::chrono::steady_clock::now();
  host->reset();
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 5s);
  ASSERT_TRUE(c.wait_finals(2, 1s));
  for (const char* id : {"first", "behind"}) {
    EXPECT_EQ(c.final_of(id).error.code(), errc::unavailable)
      << id << ": " << c.final_of(id).error.to_string();
    EXPECT_EQ(c.of(id).size(), 1u);
  }
  latch->release();
}

// A model with one instance lends it to the direct lane, whose requests run
// on the instance's worker: at the exit timeout the request a lessee posted
// there is given up on as a queued one would be, and one that waited behind
// it is answered too.
TEST(abandon, a_request_posted_by_the_direct_lane_does_not_hold_the_stop) {
  auto latch = std::make_shared<stuck_latch>();
  register_stuck_backend("stuck_lane", latch);
  temp_repository repo;
  repo.add_model("stuck", gate_config("stuck", "stuck_lane", 0));
  caf::actor_system_config cfg;
  actors::configure_actor_system(cfg);
  auto sys = std::make_unique<caf::actor_system>(cfg);
  auto o = options_for(repo.str());
  o.exit_timeout = 1;
  o.direct_lane = true;
  auto abandoned_before = abandoned_threads::total();
  auto running_before = abandoned_threads::running();
  response_collector leased;
  response_collector waiting;
  {
    auto srv = actors::server::start(*sys, o);
    ASSERT_TRUE(srv) << srv.error().to_string();
    srv->submit(fp32_request("stuck", "leased", 4, 0.0f, false), leased.callback(),
                conch::runtime::inprocess_may_run_here);
    ASSERT_TRUE(latch->wait_entered(1));
    srv->submit(fp32_request("stuck", "waiting", 4, 0.0f, false), waiting.callback(),
                conch::runtime::inprocess_may_run_here);
    auto begin = std::chrono::steady_clock::now();
    auto st = srv->stop();
    EXPECT_EQ(st.message(), "Exit timeout expired. Exiting immediately.");
    EXPECT_LT(std::chrono::steady_clock::now() - begin, 5s);
    ASSERT_TRUE(leased.wait_finals(1, 1s));
    EXPECT_EQ(leased.final_response().error.code(), errc::unavailable)
      << leased.final_response().error.to_string();
    ASSERT_TRUE(waiting.wait_finals(1, 1s));
    EXPECT_FALSE(waiting.final_response().error.is_ok());
    EXPECT_EQ(abandoned_threads::total() - abandoned_before, 1);
  }
  destroy_within(std::move(sys), 10s);
  // The abandoned request returns after the actor system is gone: its end
  // of lease touches nothing of it.
  latch->release();
  EXPECT_TRUE(eventually([&] { return abandoned_threads::running() == running_before; }));
}

TEST(abandon, a_backend_whose_finalization_never_returns_does_not_hold_the_stop) {
  // Every request is answered; then finalizing the instance hangs.
  auto latch = std::make_shared<stuck_latch>();
  register_stuck_backend("stuck_finalize", latch, stuck_in::finalize);
  temp_repository repo;
  repo.add_model("stuck", gate_config("stuck", "stuck_finalize", 0));
  caf::actor_system_config cfg;
  actors::configure_actor_system(cfg);
  auto sys = std::make_unique<caf::actor_system>(cfg);
  auto o = options_for(repo.str());
  o.exit_timeout = 1;
  {
    auto srv = actors::server::start(*sys, o);
    ASSERT_TRUE(srv) << srv.error().to_string();
    EXPECT_TRUE(infer_sync(*srv, fp32_request("stuck", "r", 4, 0.0f, false)).error.is_ok());
    auto begin = std::chrono::steady_clock::now();
    auto st = srv->stop();
    EXPECT_EQ(st.message(), "Exit timeout expired. Exiting immediately.");
    EXPECT_LT(std::chrono::steady_clock::now() - begin, 5s);
  }
  destroy_within(std::move(sys), 10s);
  latch->release();
}

} // namespace
} // namespace conch::tests
