// Lifecycle of the transport: cancellation, draining, abort, restart, ports.
#include <atomic>
#include <future>

#include <gtest/gtest.h>

#include "conch/transports/http/server.hpp"
#include "conch/transports/http/test/raw_client.hpp"
#include "conch/transports/http/test/test_handler.hpp"

namespace conch::transports::http {
namespace {

using test::make_request;
using test::raw_client;

class server_stop : public ::testing::Test {
 protected:
  std::shared_ptr<test::test_handler> handler_ = std::make_shared<test::test_handler>();
};

// A drained callback that counts its calls and can be waited for.
struct drain_probe {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::promise<void>> fired = std::make_shared<std::promise<void>>();
  std::future<void> future = fired->get_future();

  std::function<void()> callback() {
    return [calls = calls, fired = fired] {
      if (calls->fetch_add(1) == 0)
        fired->set_value();
    };
  }
  bool wait() { return future.wait_for(test::test_deadline) == std::future_status::ready; }
  bool fired_yet() { return future.wait_for(std::chrono::seconds{0}) == std::future_status::ready; }
};

TEST_F(server_stop, client_disconnect_runs_the_cancel_hook) {
  auto s = test::start_server(handler_);
  raw_client client{s->bound_port()};
  ASSERT_TRUE(client.send(make_request("GET", "/hold")));
  auto held = handler_->take_held(1);
  ASSERT_EQ(held.size(), 1u);
  client.close();
  EXPECT_TRUE(handler_->wait_cancelled(1));
  EXPECT_TRUE(held[0].req->cancelled());
  // Answering a request whose client left is harmless.
  held[0].res.send(response::text(200, "too late"));
}

TEST_F(server_stop, disconnect_after_a_closing_request_runs_the_cancel_hook) {
  auto s = test::start_server(handler_);
  raw_client client{s->bound_port()};
  ASSERT_TRUE(client.send(make_request("GET", "/hold", {}, "Connection: close\r\n")));
  auto held = handler_->take_held(1);
  ASSERT_EQ(held.size(), 1u);
  client.close();
  EXPECT_TRUE(handler_->wait_cancelled(1));
}

TEST_F(server_stop, answered_request_never_runs_the_cancel_hook) {
  auto s = test::start_server(handler_);
  raw_client client{s->bound_port()};
  ASSERT_TRUE(client.send(make_request("GET", "/hold")));
  auto held = handler_->take_held(1);
  ASSERT_EQ(held.size(), 1u);
  held[0].res.send(response::text(200, "ok"));
  ASSERT_TRUE(client.read_response());
  client.close();
  ASSERT_TRUE(test::stop_and_wait(*s));
  EXPECT_EQ(handler_->cancelled(), 0);
}

TEST_F(server_stop, begin_stop_lets_the_request_in_flight_finish_then_drains) {
  auto s = test::start_server(handler_);
  auto port = s->bound_port();
  raw_client busy{port};
  raw_client idle{port};
  ASSERT_TRUE(idle.send(make_request("GET", "/echo")));
  ASSERT_TRUE(idle.read_response());
  ASSERT_TRUE(busy.send(make_request("GET", "/hold")));
  auto held = handler_->take_held(1);
  ASSERT_EQ(held.size(), 1u);

  drain_probe drained;
  s->begin_stop(drained.callback());
  EXPECT_TRUE(idle.wait_closed());  // idle keep-alive connections close at once
  EXPECT_FALSE(drained.fired_yet());

  held[0].res.send(response::text(200, "finished"));
  auto resp = busy.read_response();
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->body, "finished");
  EXPECT_EQ(test::field(*resp, "Connection"), "close");
  EXPECT_TRUE(busy.wait_closed());
  busy.close();
  EXPECT_TRUE(drained.wait());
  EXPECT_EQ(*drained.calls, 1);
  EXPECT_EQ(handler_->cancelled(), 0);
  EXPECT_FALSE(s->running());
}

TEST_F(server_stop, a_stream_open_near_the_stops_end_is_cancelled_and_may_end_itself) {
  // A budget of 600 ms leaves streams 300 ms (the rest is for the close).
  auto o = test::test_options();
  o.stop_timeout = std::chrono::milliseconds{600};
  auto s = test::start_server(handler_, o);
  raw_client client{s->bound_port()};
  ASSERT_TRUE(client.send(make_request("GET", "/hold")));
  auto held = handler_->take_held(1);
  ASSERT_EQ(held.size(), 1u);
  response head{200};
  head.headers.set("Content-Type", "text/event-stream");
  held[0].res.begin_stream(std::move(head));
  held[0].res.write("data: one\n\n");
  ASSERT_TRUE(client.wait_for("data: one\n\n"));

  drain_probe drained;
  s->begin_stop(drained.callback());
  // A stream never ends by itself; near the end of the stop its request is
  // cancelled, and what it writes then still reaches the client.
  EXPECT_TRUE(handler_->wait_cancelled(1));
  EXPECT_FALSE(drained.fired_yet());
  held[0].res.write("data: last\n\n");
  held[0].res.end_stream();
  auto resp = client.read_response();
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->body, "data: one\n\ndata: last\n\n");
  client.close();
  EXPECT_TRUE(drained.wait());
}

TEST_F(server_stop, a_stream_that_outlives_the_stop_is_cut_at_its_end) {
  auto o = test::test_options();
  o.stop_timeout = std::chrono::milliseconds{400};
  auto s = test::start_server(handler_, o);
  raw_client client{s->bound_port()};
  ASSERT_TRUE(client.send(make_request("GET", "/hold")));
  auto held = handler_->take_held(1);
  ASSERT_EQ(held.size(), 1u);
  held[0].res.begin_stream(response{200});
  held[0].res.write("data: one\n\n");
  ASSERT_TRUE(client.wait_for("data: one\n\n"));
  drain_probe drained;
  s->begin_stop(drained.callback());
  EXPECT_TRUE(handler_->wait_cancelled(1));
  EXPECT_TRUE(client.wait_closed());  // the handler never ended it
  EXPECT_TRUE(drained.wait());
}

TEST_F(server_stop, listener_is_closed_after_begin_stop) {
  auto s = test::start_server(handler_);
  auto port = s->bound_port();
  ASSERT_TRUE(test::stop_and_wait(*s));
  raw_client late{port};
  EXPECT_FALSE(late.connected());
}

TEST_F(server_stop, abort_cancels_what_is_in_flight_and_drained_fires_once) {
  auto s = test::start_server(handler_);
  raw_client a{s->bound_port()};
  raw_client b{s->bound_port()};
  ASSERT_TRUE(a.send(make_request("GET", "/hold")));
  ASSERT_TRUE(b.send(make_request("GET", "/hold")));
  auto held = handler_->take_held(2);
  ASSERT_EQ(held.size(), 2u);
  drain_probe drained;
  s->begin_stop(drained.callback());
  s->abort();
  EXPECT_TRUE(handler_->wait_cancelled(2));
  EXPECT_TRUE(drained.wait());
  EXPECT_TRUE(a.wait_closed());
  EXPECT_TRUE(b.wait_closed());
  // Responders that outlive the loops do nothing.
  held[0].res.send(response::text(200, "late"));
  s->abort();
  s.reset();
  held.clear();
  EXPECT_EQ(*drained.calls, 1);
}

TEST_F(server_stop, begin_stop_when_not_running_calls_drained_at_once) {
  server s{test::test_options(), handler_};
  drain_probe drained;
  s.begin_stop(drained.callback());
  EXPECT_TRUE(drained.fired_yet());
  s.abort();
}

TEST_F(server_stop, the_same_server_restarts_after_a_stop) {
  auto s = test::start_server(handler_);
  for (int round = 0; round < 3; ++round) {
    raw_client client{s->bound_port()};
    ASSERT_TRUE(client.send(make_request("POST", "/echo", "round")));
    auto resp = client.read_response();
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->body, "round");
    client.close();
    ASSERT_TRUE(test::stop_and_wait(*s));
    auto st = s->start();
    ASSERT_TRUE(st.is_ok()) << st.to_string();
  }
}

TEST_F(server_stop, a_new_server_binds_the_port_a_stopped_one_used) {
  auto first = test::start_server(handler_);
  auto port = first->bound_port();
  {
    raw_client client{port};
    ASSERT_TRUE(client.send(make_request("GET", "/echo", {}, "Connection: close\r\n")));
    ASSERT_TRUE(client.read_response());
    EXPECT_TRUE(client.wait_closed());
  }
  ASSERT_TRUE(test::stop_and_wait(*first));
  auto opts = test::test_options();
  opts.port = port;
  auto second = test::start_server(handler_, opts);
  raw_client client{port};
  ASSERT_TRUE(client.send(make_request("GET", "/echo")));
  auto resp = client.read_response();
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->status, 200);
}

TEST_F(server_stop, start_while_running_is_unavailable) {
  auto s = test::start_server(handler_);
  auto st = s->start();
  EXPECT_EQ(st.code(), runtime::errc::unavailable);
}

TEST_F(server_stop, port_in_use_is_unavailable) {
  auto first = test::start_server(handler_);
  auto opts = test::test_options();
  opts.port = first->bound_port();
  server second{opts, handler_};
  auto st = second.start();
  EXPECT_EQ(st.code(), runtime::errc::unavailable);
  EXPECT_NE(st.message().find("address already in use"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(std::to_string(opts.port)), std::string::npos) << st.message();
  EXPECT_FALSE(second.running());
}

TEST_F(server_stop, bad_address_is_invalid_argument) {
  auto opts = test::test_options();
  opts.address = "not-an-address";
  server s{opts, handler_};
  EXPECT_EQ(s.start().code(), runtime::errc::invalid_argument);
  opts.address = "127.0.0.1";
  opts.thread_count = 0;
  server t{opts, handler_};
  EXPECT_EQ(t.start().code(), runtime::errc::invalid_argument);
}

TEST_F(server_stop, two_servers_share_a_port_with_reuse_port) {
  auto opts = test::test_options();
  opts.reuse_port = true;
  auto first = test::start_server(handler_, opts);
  opts.port = first->bound_port();
  auto second = test::start_server(handler_, opts);
  EXPECT_EQ(second->bound_port(), first->bound_port());
  // With the first one gone, the port is still served, by the second.
  ASSERT_TRUE(test::stop_and_wait(*first));
  for (int i = 0; i < 4; ++i) {
    raw_client client{second->bound_port()};
    ASSERT_TRUE(client.send(make_request("GET", "/echo")));
    auto resp = client.read_response();
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->status, 200);
  }
}

TEST_F(server_stop, a_port_without_reuse_port_cannot_be_shared) {
  auto opts = test::test_options();
  opts.reuse_port = true;
  auto first = test::start_server(handler_, opts);
  opts.port = first->bound_port();
  opts.reuse_port = false;
  server second{opts, handler_};
  EXPECT_EQ(second.start().code(), runtime::errc::unavailable);
}

} // namespace
} // namespace conch::transports::http
