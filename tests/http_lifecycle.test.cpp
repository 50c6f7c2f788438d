// The HTTP frontend's life: start, stop, restart, a port in use, bad
// options, and stops (of the frontend, of the server) with a request in
// flight: every request gets an answer or a clean close, never a hang.

#include <future>
#include <string>
#include <thread>

#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <gtest/gtest.h>

#include "conch/actors/adapters/adapter_pool.hpp"
#include "support/gate_backend.hpp"
#include "support/http_fixture.hpp"

namespace conch::tests {
namespace {

using runtime::errc;
using transports::http::test::make_request;

class http_lifecycle : public http_fixture {};

TEST_F(http_lifecycle, start_twice_stop_twice_and_restart) {
  start_all();
  EXPECT_EQ(http_->start().code(), errc::already_exists);
  EXPECT_EQ(http_->start().message(), "HTTP server is already running.");
  ASSERT_TRUE(http_->stop());
  auto st = http_->stop();
  EXPECT_EQ(st.code(), errc::unavailable);
  EXPECT_EQ(st.message(), "HTTP server is not running.");
  EXPECT_FALSE(raw_client{port_}.connected());
  ASSERT_TRUE(http_->start());
  auto live = http_call(http_->port(), "GET", "/v2/health/live");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);
  ASSERT_TRUE(http_->stop());
}

TEST_F(http_lifecycle, a_port_in_use_fails_at_start) {
  start_all();
  auto opts = test_http_options();
  opts.port = port_;
  actors::http_frontend second{*srv_, opts};
  auto st = second.start();
  EXPECT_EQ(st.code(), errc::unavailable) << st.to_string();
  EXPECT_EQ(second.stop().code(), errc::unavailable);
  // The first one still serves.
  auto live = call("GET", "/v2/health/live");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);
}

TEST_F(http_lifecycle, bad_options_fail_at_start) {
  start_all();
  auto bad = [&](auto change, errc code) {
    auto opts = test_http_options();
    change(opts);
    actors::http_frontend fe{*srv_, opts};
    auto st = fe.start();
    EXPECT_EQ(st.code(), code) << st.to_string();
  };
  bad([](auto& o) { o.thread_count = 0; }, errc::invalid_argument);
  bad([](auto& o) { o.port = 70000; }, errc::invalid_argument);
  bad([](auto& o) { o.address = "not an address"; }, errc::invalid_argument);
  bad([](auto& o) { o.header_forward_pattern = "(["; }, errc::invalid_argument);
  bad([](auto& o) { o.restricted_features = {{"k", "v", {"healthy"}}}; }, errc::invalid_argument);
  bad([](auto& o) { o.restricted_features = {{"k", "v", {"trace"}}, {"j", "v", {"trace"}}}; },
      errc::invalid_argument);
}

TEST_F(http_lifecycle, requests_after_the_server_stopped_get_an_error) {
  start_all();
  ASSERT_TRUE(srv_->stop());
  // The server stopped its frontends first: nothing listens any more.
  EXPECT_FALSE(raw_client{port_}.connected());
  auto st = http_->start();
  EXPECT_EQ(st.code(), errc::unavailable) << st.to_string();
  // Stopping what the server stopped already is harmless.
  (void) http_->stop();
  EXPECT_FALSE(http_call(port_, "GET", "/v2/health/live"));
}

TEST_F(http_lifecycle, readiness_counts_only_models_that_exist_and_survives_bad_configs) {
  start_all();
  auto load = [&](const std::string& model, const std::string& body = "") {
    auto r = call("POST", "/v2/repository/models/" + model + "/load", body);
    return r ? r->status : 0;
  };
  auto health = [&](const std::string& which) {
    auto r = call("GET", "/v2/health/" + which);
    return r ? r->status : 0;
  };
  EXPECT_EQ(load("nonexistent"), 500);  // Triton: "failed to poll from model repository"
  EXPECT_EQ(load("identity_fp32"), 200);
  EXPECT_EQ(health("ready"), 200);
  // A configuration that would start two billion instances is refused, and
  // the server (its repository included) goes on serving.
  auto huge = R"({"parameters":{"config":"{\"name\":\"identity_fp32\",\"backend\":\"identity\",)"
              R"(\"max_batch_size\":64,\"input\":[{\"name\":\"INPUT0\",)"
              R"(\"data_type\":\"TYPE_FP32\",)"
              R"(\"dims\":[16]}],\"output\":[{\"name\":\"OUTPUT0\",\"data_type\":\"TYPE_FP32\",)"
              R"(\"dims\":[16]}],\"instance_group\":[{\"kind\":\"KIND_CPU\",)"
              R"(\"count\":2000000000}]}"}})";
  auto refused = call("POST", "/v2/repository/models/identity_fp32/load", huge);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400) << refused->body;
  EXPECT_NE(refused->body.find("instance_group[0].count"), std::string::npos) << refused->body;
  EXPECT_EQ(load("simple"), 200);
  EXPECT_EQ(health("live"), 200);
  EXPECT_EQ(health("ready"), 200);
  auto infer = call("POST", "/v2/models/identity_fp32/infer",
                    R"({"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32",)"
                    R"("data":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]}]})");
  ASSERT_TRUE(infer);
  EXPECT_EQ(infer->status, 200) << infer->body;
}

TEST_F(http_lifecycle, a_dead_core_turns_both_health_endpoints_off) {
  start_all();
  actors::repository_actor repository;
  {
    caf::scoped_actor self{sys()};
    self->request(srv_->handle(), caf::infinite, caf::get_atom_v)
      .receive([&](actors::repository_actor& r, actors::adapter_pool_actor&) { repository = r; },
               [&](caf::error& err) { ADD_FAILURE() << to_string(err); });
  }
  ASSERT_TRUE(repository);
  caf::anon_send_exit(repository, caf::exit_reason::kill);
  auto status_of = [&](const std::string& target) {
    auto r = call("GET", target);
    return r ? r->status : 0;
  };
  EXPECT_TRUE(eventually([&] { return status_of("/v2/health/live") == 400; }));
  EXPECT_EQ(status_of("/v2/health/ready"), 400);
}

// A server whose model "held" waits at a gate until the test opens it.
class http_stop_in_flight : public http_fixture {
 protected:
  void SetUp() override {
    gate_ = std::make_shared<gate>();
    register_gate_backend("gate_http_stop", gate_);
    repo_.add_model("held", gate_config("held", "gate_http_stop", 0));
    start_all(options_for(repo_.str()));
  }

  void TearDown() override {
    gate_->open();
    http_fixture::TearDown();
  }

  static std::string held_request() {
    return make_request("POST", "/v2/models/held/infer",
                        R"({"inputs":[{"name":"INPUT0","shape":[4],"datatype":"FP32",)"
                        R"("data":[1,2,3,4]}]})");
  }

  std::shared_ptr<gate> gate_;
  temp_repository repo_;
};

TEST_F(http_stop_in_flight, server_stop_lets_the_request_finish) {
  raw_client c{port_};
  ASSERT_TRUE(c.send(held_request()));
  ASSERT_TRUE(gate_->wait_entered(1));
  auto stopped = std::async(std::launch::async, [&] { return srv_->stop(); });
  ASSERT_TRUE(eventually([&] { return !srv_->ready(); }));
  // A new inference: no connection once the frontend stopped listening,
  // else 503 from the draining transport or the stopping server; or, when
  // it reached the server while the frontend was still open (as a loaded
  // machine can make it), it is admitted and answered like the first one,
  // once the gate opens.
  raw_client late{port_};
  bool late_sent = late.connected() && late.send(held_request());
  gate_->open();
  if (late_sent) {
    if (auto late_answer = late.read_response()) {
      EXPECT_TRUE(late_answer->status == 503 || late_answer->status == 200)
        << late_answer->status << " " << late_answer->body;
    }
  }
  auto r = c.read_response();
  ASSERT_TRUE(r) << "the request in flight got no answer";
  EXPECT_EQ(r->status, 200) << r->body;
  ASSERT_EQ(stopped.wait_for(std::chrono::seconds{30}), std::future_status::ready);
  EXPECT_TRUE(stopped.get());
}

TEST_F(http_stop_in_flight, frontend_stop_lets_the_request_finish_then_restarts) {
  raw_client c{port_};
  ASSERT_TRUE(c.send(held_request()));
  ASSERT_TRUE(gate_->wait_entered(1));
  auto stopped = std::async(std::launch::async, [&] { return http_->stop(); });
  gate_->open();
  auto r = c.read_response();
  ASSERT_TRUE(r) << "the request in flight got no answer";
  EXPECT_EQ(r->status, 200) << r->body;
  ASSERT_EQ(stopped.wait_for(std::chrono::seconds{30}), std::future_status::ready);
  EXPECT_TRUE(stopped.get());
  // The server kept running; the frontend starts again.
  ASSERT_TRUE(http_->start());
  auto again = http_call(http_->port(), "POST", "/v2/models/held/infer",
                         R"({"inputs":[{"name":"INPUT0","shape":[4],"datatype":"FP32",)"
                         R"("data":[1,2,3,4]}]})");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body;
}

TEST_F(http_stop_in_flight, exit_timeout_ends_a_stuck_request_without_a_hang) {
  // A server whose exit timeout is short; the gate is never opened before
  // the stop returns.
  http_.reset();
  auto options = options_for(repo_.str());
  options.exit_timeout = 1;
  auto s = start(options);
  ASSERT_TRUE(s) << s.error().to_string();
  actors::http_frontend fe{*s, test_http_options()};
  ASSERT_TRUE(fe.start());
  raw_client c{fe.port()};
  ASSERT_TRUE(c.send(held_request()));
  ASSERT_TRUE(gate_->wait_entered(1));
  auto st = s->stop();
  EXPECT_EQ(st.code(), errc::internal) << st.to_string();
  // The request was answered with an error or its connection closed.
  auto r = c.read_response();
  if (r) {
    EXPECT_NE(r->status, 200) << r->body;
  }
}

} // namespace
} // namespace conch::tests
