// The gRPC frontend's life: start, stop, restart, a port in use, bad
// options, and stops (of the frontend, of the server) while it runs, with a
// call in flight: every call gets an answer, never a hang.

#include <future>

#include <gtest/gtest.h>

#include "conch/actors/frontends/grpc_transport.hpp"
#include "conch/actors/frontends/server_gateway.hpp"
#include "support/gate_backend.hpp"
#include "support/grpc_fixture.hpp"

namespace conch::tests {
namespace {

using runtime::errc;

class grpc_lifecycle : public grpc_fixture {
 protected:
  grpc::Status live_call() {
    inference::ServerLiveResponse live;
    return stub_->ServerLive(client_context().get(), {}, &live);
  }
};

TEST_F(grpc_lifecycle, start_twice_stop_twice_and_restart) {
  start_all();
  EXPECT_EQ(grpc_->start().code(), errc::already_exists);
  EXPECT_EQ(grpc_->start().message(), "gRPC server is already running.");
  ASSERT_TRUE(grpc_->stop());
  auto st = grpc_->stop();
  EXPECT_EQ(st.code(), errc::unavailable);
  EXPECT_EQ(st.message(), "gRPC server is not running.");
  EXPECT_FALSE(live_call().ok());
  ASSERT_TRUE(grpc_->start());
  port_ = grpc_->port();
  ASSERT_NE(port_, 0);
  connect();
  auto live = live_call();
  EXPECT_TRUE(live.ok()) << live.error_message();
  ASSERT_TRUE(grpc_->stop());
}

TEST_F(grpc_lifecycle, a_port_in_use_fails_at_start) {
  start_all();
  auto opts = test_grpc_options();
  opts.port = port_;
  actors::grpc_frontend second{*srv_, opts};
  auto st = second.start();
  EXPECT_EQ(st.code(), errc::unavailable) << st.to_string();
  EXPECT_EQ(second.stop().code(), errc::unavailable);
  // The first one still serves.
  auto live = live_call();
  EXPECT_TRUE(live.ok()) << live.error_message();
}

TEST_F(grpc_lifecycle, a_port_out_of_range_is_invalid) {
  start_all();
  auto opts = test_grpc_options();
  opts.port = 70000;
  actors::grpc_frontend fe{*srv_, opts};
  EXPECT_EQ(fe.start().code(), errc::invalid_argument);
}

TEST_F(grpc_lifecycle, stopping_the_server_stops_the_frontend) {
  start_all();
  auto live = live_call();
  ASSERT_TRUE(live.ok()) << live.error_message();
  ASSERT_TRUE(srv_->stop());
  EXPECT_FALSE(live_call().ok());
  EXPECT_EQ(grpc_->start().code(), errc::unavailable);
}

TEST_F(grpc_lifecycle, health_check_fails_once_the_frontend_stopped) {
  start_all();
  grpc::health::v1::HealthCheckResponse res;
  auto st = health_->Check(client_context().get(), {}, &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(res.status(), grpc::health::v1::HealthCheckResponse::SERVING);
  ASSERT_TRUE(grpc_->stop());
  st = health_->Check(client_context().get(), {}, &res);
  EXPECT_FALSE(st.ok());
}

// The stop protocol calls begin_stop before abort; a transport told in the
// other order still reports that it drained, once.
TEST_F(grpc_lifecycle, a_transport_aborted_before_its_stop_still_drains) {
  start_all();
  transports::grpc::server_options o;
  o.address = "127.0.0.1";
  o.port = 0;
  actors::grpc_transport transport{o, std::make_shared<actors::server_gateway>(*srv_)};
  ASSERT_TRUE(transport.start());
  ASSERT_NE(transport.port(), 0);
  transport.abort();
  std::promise<void> drained;
  int calls = 0;
  transport.begin_stop([&] {
    if (++calls == 1)
      drained.set_value();
  });
  ASSERT_EQ(drained.get_future().wait_for(std::chrono::seconds{30}), std::future_status::ready);
  EXPECT_EQ(calls, 1);
  // Told once more after the shutdown ended: at once.
  transport.begin_stop([&] { ++calls; });
  EXPECT_EQ(calls, 2);
}

// A server whose model "held" waits at a gate until the test opens it.
class grpc_stop_in_flight : public grpc_fixture {
 protected:
  void SetUp() override {
    gate_ = std::make_shared<gate>();
    register_gate_backend("gate_grpc_stop", gate_);
    repo_.add_model("held", gate_config("held", "gate_grpc_stop", 0));
    start_all(options_for(repo_.str()));
  }

  void TearDown() override {
    gate_->open();
    grpc_fixture::TearDown();
  }

  // Calls ModelInfer on "held" from a thread of its own.
  std::future<grpc::Status> held_call(inference::GRPCInferenceService::Stub& stub) {
    return std::async(std::launch::async, [&stub] {
      inference::ModelInferRequest req;
      req.set_model_name("held");
      auto* in = req.add_inputs();
      in->set_name("INPUT0");
      in->set_datatype("FP32");
      in->add_shape(4);
      for (float v : {1.f, 2.f, 3.f, 4.f})
        in->mutable_contents()->add_fp32_contents(v);
      inference::ModelInferResponse res;
      auto st = stub.ModelInfer(client_context().get(), req, &res);
      if (st.ok() && res.raw_output_contents_size() != 1)
        return grpc::Status{grpc::StatusCode::INTERNAL, "test: no raw output"};
      return st;
    });
  }

  std::shared_ptr<gate> gate_;
  temp_repository repo_;
};

TEST_F(grpc_stop_in_flight, server_stop_lets_the_call_finish) {
  auto call = held_call(*stub_);
  ASSERT_TRUE(gate_->wait_entered(1));
  auto stopped = std::async(std::launch::async, [&] { return srv_->stop(); });
  ASSERT_TRUE(eventually([&] { return !srv_->ready(); }));
  gate_->open();
  auto st = call.get();
  EXPECT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(stopped.wait_for(std::chrono::seconds{30}), std::future_status::ready);
  EXPECT_TRUE(stopped.get());
}

TEST_F(grpc_stop_in_flight, frontend_stop_lets_the_call_finish_then_restarts) {
  auto call = held_call(*stub_);
  ASSERT_TRUE(gate_->wait_entered(1));
  auto stopped = std::async(std::launch::async, [&] { return grpc_->stop(); });
  gate_->open();
  auto st = call.get();
  EXPECT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(stopped.wait_for(std::chrono::seconds{30}), std::future_status::ready);
  EXPECT_TRUE(stopped.get());
  // The server kept running; the frontend starts again.
  ASSERT_TRUE(grpc_->start());
  port_ = grpc_->port();
  connect();
  st = held_call(*stub_).get();
  EXPECT_TRUE(st.ok()) << st.error_message();
}

TEST_F(grpc_stop_in_flight, exit_timeout_ends_a_stuck_call_without_a_hang) {
  // A server whose exit timeout is short; the gate is never opened before
  // the stop returns.
  grpc_.reset();
  auto options = options_for(repo_.str());
  options.exit_timeout = 1;
  auto s = start(options);
  ASSERT_TRUE(s) << s.error().to_string();
  actors::grpc_frontend fe{*s, test_grpc_options()};
  ASSERT_TRUE(fe.start());
  auto stub = inference::GRPCInferenceService::NewStub(grpc::CreateChannel(
    "127.0.0.1:" + std::to_string(fe.port()), grpc::InsecureChannelCredentials()));
  auto call = held_call(*stub);
  ASSERT_TRUE(gate_->wait_entered(1));
  auto st = s->stop();
  EXPECT_EQ(st.code(), errc::internal) << st.to_string();
  // The call was answered with an error.
  EXPECT_FALSE(call.get().ok());
}

} // namespace
} // namespace conch::tests
