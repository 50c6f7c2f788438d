// The connection policy on the wire: timeouts, the connection cap, the
// budget of request bytes, and stops under slow clients. Time comes from
// short configured timeouts; every wait is bounded by raw_client's timeout.
#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "conch/transports/http/server.hpp"
#include "conch/transports/http/test/raw_client.hpp"
#include "conch/transports/http/test/test_handler.hpp"

namespace conch::transports::http {
namespace {

using runtime::statistics::connection_timeout;
using runtime::statistics::request_refusal;
using std::chrono::milliseconds;
using test::make_request;
using test::raw_client;

constexpr milliseconds short_timeout{200};

class server_policy : public ::testing::Test {
 protected:
  std::shared_ptr<test::test_handler> handler_ = std::make_shared<test::test_handler>();

  static server_options options() {
    auto o = test::test_options();
    o.policy.header_timeout = o.policy.body_timeout = o.policy.keepalive_timeout = o.policy.write_timeout = milliseconds{0};
    o.policy.drain_timeout = short_timeout;
    return o;
  }

  // Stops `s` and returns how long the stop took.
  static milliseconds timed_stop(server& s) {
    auto begin = std::chrono::steady_clock::now();
    EXPECT_TRUE(test::stop_and_wait(s));
    return std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - begin);
  }

  // Waits until `probe` holds (the transport counts on its own threads).
  template <class F>
  static bool eventually(F probe) {
    auto deadline = std::chrono::steady_clock::now() + test::test_deadline;
    while (!probe()) {
      if (std::chrono::steady_clock::now() > deadline)
        return false;
      std::this_thread::sleep_for(milliseconds{2});
    }
    return true;
  }
};

TEST_F(server_policy, slowloris_headers_get_408_and_a_close) {
  auto o = options();
  o.policy.header_timeout = short_timeout;
  auto s = test::start_server(handler_, o);
  raw_client client{s->bound_port()};
  ASSERT_TRUE(client.send("GET /echo HTTP/1.1\r\nHost: x\r\nX-Slow: "));
  auto resp = client.read_response();
  ASSERT_TRUE(resp.has_value());
  EXPECT_EQ(resp->status, 408);
  EXPECT_EQ(resp->body, R"({"error":"the request line and headers did not arrive within 200 ms"})");
  EXPECT_EQ(test::field(*resp, "Connection"), "close");
  EXPECT_TRUE(client.wait_closed());
  EXPECT_EQ(s->stats()->timed_out(connection_timeout::header), 1);
}

TEST_F(server_policy, a_connection_that_sends_nothing_is_closed_at_the_header_timeout) {
  auto o = options();
  o.policy.header_timeout = short_timeout;
  auto s = test::start_server(handler_, o);
  raw_client client{s->bound_port()};
  EXPECT_TRUE(client.wait_closed());
  EXPECT_TRUE(client.unread().empty());  // nobody to answer
  EXPECT_EQ(s->stats()->timed_out(connection_timeout::header), 1);
}

TEST_F(server_policy, headers_that_arrive_in_time_are_served) {
  auto o = options();
  o.policy.header_timeout = milliseconds{5'000};
  auto s = test::start_server(handler_, o);
  raw_client client{s->bound_port()};
  ASSERT_TRUE(client.send(make_request("GET", "/echo")));
  auto resp = client.read_response();
  ASSERT_TRUE(resp.has_value());
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(s->stats()->timed_out(connection_timeout::header), 0);
}

TEST_F(server_policy, slowloris_body_gets_408) {
  auto o = options();
  o.policy.body_timeout = short_timeout;
  auto s = test::start_server(handler_, o);
  raw_client client{s->bound_port()};
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789"));
  auto resp = client.read_response();
  ASSERT_TRUE(resp.has_value());
  EXPECT_EQ(resp->status, 408);
  EXPECT_EQ(resp->body, R"({"error":"the request body stopped arriving for 200 ms"})");
  EXPECT_TRUE(client.wait_closed());
  EXPECT_EQ(s->stats()->timed_out(connection_timeout::body), 1);
}

TEST_F(server_policy, time_the_server_holds_the_client_back_is_not_the_clients) {
  auto o = options();
  o.policy.body_timeout = short_timeout;
  o.max_pipelined_requests = 1;
  auto s = test::start_server(handler_, o);
  raw_client client{s->bound_port()};
  // One write: a held request, then half of the next one's body, which the
  // transport reads with the first but does not parse (one request in
  // flight is all the connection may have) for longer than the body timeout.
  ASSERT_TRUE(client.send(make_request("GET", "/hold")
                          + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n01234"));
  auto held = handler_->take_held(1);
  ASSERT_EQ(held.size(), 1u);
  std::this_thread::sleep_for(2 * short_timeout);
  held[0].res.send(response::text(200, "first"));
  // The rest comes well within the body timeout counted from the release.
  std::this_thread::sleep_for(short_timeout / 4);
  ASSERT_TRUE(client.send("56789"));
  auto first = client.read_response();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->status, 200);
  auto second = client.read_response();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->status, 200) << second->body;
  EXPECT_EQ(second->body, "0123456789");
  EXPECT_EQ(s->stats()->timed_out(connection_timeout::body), 0);
}

TEST_F(server_policy, an_idle_keep_alive_connection_is_closed) {
  auto o = options();
  o.policy.keepalive_timeout = short_timeout;
  auto s = test::start_server(handler_, o);
  raw_client client{s->bound_port()};
  ASSERT_TRUE(client.send(make_request("GET", "/echo")));
  auto resp = client.read_response();
  ASSERT_TRUE(resp.has_value());
  EXPECT_EQ(resp->status, 200);
  EXPECT_TRUE(client.wait_closed());
  EXPECT_EQ(s->stats()->timed_out(connection_timeout::keepalive), 1);
  EXPECT_TRUE(eventually([&] { return s->stats()->open.load() == 0; }));
}

TEST_F(server_policy, empty_lines_do_not_keep_an_idle_connection_open) {
  auto o = options();
  o.policy.keepalive_timeout = short_timeout;
  auto s = test::start_server(handler_, o);
  raw_client client{s->bound_port()};
  ASSERT_TRUE(client.send(make_request("GET", "/echo")));
  auto resp = client.read_response();
  ASSERT_TRUE(resp.has_value());
  // A CRLF every quarter of the timeout, for four timeouts: the parser skips
  // them between requests, and so does the keep-alive timeout.
  auto timed_out = [&] { return s->stats()->timed_out(connection_timeout::keepalive) == 1; };
  for (int i = 0; i < 16 && !timed_out(); ++i) {
    std::this_thread::sleep_for(short_timeout / 4);
    (void) client.send("\r\n");
  }
  // Checked before the last CRLF could have timed out on its own.
  EXPECT_TRUE(timed_out());
  EXPECT_TRUE(client.wait_closed());
}

TEST_F(server_policy, a_client_that_never_reads_is_closed_at_the_write_timeout) {
  auto o = options();
  o.policy.write_timeout = short_timeout;
  auto s = test::start_server(handler_, o);
  raw_client client{s->bound_port()};
  // 64 MiB: more than the socket buffers of both ends hold.
  ASSERT_TRUE(client.send(make_request("GET", "/bytes/67108864")));
  EXPECT_TRUE(eventually([&] { return s->stats()->timed_out(connection_timeout::write) == 1; }));
  EXPECT_TRUE(eventually([&] { return s->stats()->open.load() == 0; }));
  EXPECT_EQ(s->stats()->response_bytes.load(), 0);
}

TEST_F(server_policy, answers_a_pipelining_client_does_not_read_stop_the_reading) {
  auto o = options();
  o.write_high_water = 64 * 1024;
  o.max_pipelined_requests = 10'000;
  auto s = test::start_server(handler_, o);
  raw_client client{s->bound_port()};
  // A request held first keeps every answer behind it in the pipeline.
  ASSERT_TRUE(client.send(make_request("GET", "/hold")));
  auto held = handler_->take_held(1);
  ASSERT_EQ(held.size(), 1u);
  std::string batch;
  for (int i = 0; i < 100; ++i)
    batch += make_request("GET", "/bytes/4096");
  ASSERT_TRUE(client.send(batch));
  EXPECT_TRUE(eventually([&] { return s->stats()->response_bytes.load() >= 64 * 1024; }));
  // Past the high water mark the connection is not read: later batches
  // stay in the socket, and the answers held stay at about one batch.
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(client.send(batch));
  std::this_thread::sleep_for(milliseconds{50});
  auto one_batch = 100 * (4096 + 200);
  EXPECT_LT(s->stats()->response_bytes.load(), 64 * 1024 + one_batch);
  held[0].res.send(response::text(200, "first"));
  for (int i = 0; i < 501; ++i) {
    auto resp = client.read_response();
    ASSERT_TRUE(resp.has_value()) << i;
    EXPECT_EQ(resp->status, 200);
  }
}

TEST_F(server_policy, connections_past_the_cap_are_closed_at_once_and_counted) {
  auto o = options();
  o.policy.max_connections = 3;
  auto s = test::start_server(handler_, o);
  std::vector<std::unique_ptr<raw_client>> clients;
  for (int i = 0; i < 3; ++i) {
    clients.push_back(std::make_unique<raw_client>(s->bound_port()));
    ASSERT_TRUE(clients.back()->send(make_request("GET", "/echo")));
    ASSERT_TRUE(clients.back()->read_response().has_value());
  }
  raw_client extra{s->bound_port()};
  EXPECT_TRUE(extra.wait_closed());
  EXPECT_EQ(s->stats()->refused.load(), 1);
  // A connection that closes makes room for the next.
  clients.front()->close();
  EXPECT_TRUE(eventually([&] { return s->stats()->open.load() == 2; }));
  raw_client next{s->bound_port()};
  ASSERT_TRUE(next.send(make_request("GET", "/echo")));
  auto resp = next.read_response();
  ASSERT_TRUE(resp.has_value());
  EXPECT_EQ(resp->status, 200);
}

TEST_F(server_policy, bodies_past_the_input_budget_get_503) {
  constexpr size_t mib = 1024 * 1024;
  auto o = options();
  o.policy.max_inflight_bytes = 3 * mib / 2;
  auto s = test::start_server(handler_, o);
  const std::string head = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n";
  raw_client first{s->bound_port()};
  ASSERT_TRUE(first.send(head + std::string(600 * 1024, 'a')));
  EXPECT_TRUE(eventually([&] { return s->input_budget()->used() >= 600 * 1024; }));
  raw_client second{s->bound_port()};
  ASSERT_TRUE(second.send(head + std::string(600 * 1024, 'b')));
  auto resp = second.read_response();
  ASSERT_TRUE(resp.has_value());
  EXPECT_EQ(resp->status, 503);
  EXPECT_EQ(resp->body,
            R"({"error":"the server is busy: request bodies in flight exceed 1572864 bytes"})");
  EXPECT_EQ(s->stats()->refused_requests(request_refusal::input_budget), 1);
  // The first body still completes, and its bytes are given back.
  ASSERT_TRUE(first.send(std::string(mib - 600 * 1024, 'a')));
  auto ok = first.read_response();
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body.size(), mib);
  EXPECT_TRUE(eventually([&] { return s->input_budget()->used() == 0; }));
}

TEST_F(server_policy, a_body_larger_than_the_whole_budget_is_too_large_not_busy) {
  auto o = options();
  o.policy.max_inflight_bytes = 1000;
  auto s = test::start_server(handler_, o);
  raw_client client{s->bound_port()};
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n"));
  auto resp = client.read_response();
  ASSERT_TRUE(resp.has_value());
  EXPECT_EQ(resp->status, 400);
  EXPECT_EQ(resp->body, R"({"error":"Request JSON size of 1001 bytes exceeds the maximum allowed value of 1000 bytes. Use --http-max-input-size to increase the limit."})");
  EXPECT_EQ(s->stats()->refused_requests(request_refusal::body_size), 1);
}

TEST_F(server_policy, a_chunked_body_within_the_budget_reserves_no_more_than_it) {
  auto o = options();
  o.policy.max_inflight_bytes = 1000;
  auto s = test::start_server(handler_, o);
  raw_client client{s->bound_port()};
  // Two chunks, 512 then 88 bytes: doubling the first would reserve 1024.
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                          "200\r\n" + std::string(512, 'a') + "\r\n58\r\n" + std::string(88, 'b')
                          + "\r\n0\r\n\r\n"));
  auto resp = client.read_response();
  ASSERT_TRUE(resp.has_value());
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(resp->body.size(), 600u);
}

TEST_F(server_policy, a_burst_announcing_large_bodies_holds_only_what_arrived) {
  auto o = options();
  o.policy.max_connections = 2000;
  auto s = test::start_server(handler_, o);
  std::vector<std::unique_ptr<raw_client>> clients;
  for (int i = 0; i < 1000; ++i) {
    clients.push_back(std::make_unique<raw_client>(s->bound_port()));
    ASSERT_TRUE(clients.back()->send(
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 33554432\r\n\r\n" + std::string(100, 'x')));
  }
  EXPECT_TRUE(eventually([&] { return s->stats()->open.load() == 1000; }));
  // 32 GiB announced; the first growth step (64 KiB) each is held, once
  // every connection's bytes were read (so each is mid-message at the stop).
  EXPECT_TRUE(eventually([&] { return s->input_budget()->used() == 1000 * 64 * 1024; }));
  auto took = timed_stop(*s);
  EXPECT_LT(took, milliseconds{3'000});
  EXPECT_EQ(s->stats()->timed_out(connection_timeout::drain), 1000);
  EXPECT_EQ(s->input_budget()->used(), 0);
}

TEST_F(server_policy, a_stop_answers_a_request_still_arriving_with_503_at_the_drain_deadline) {
  auto o = options();
  auto s = test::start_server(handler_, o);
  raw_client headers{s->bound_port()};
  raw_client body{s->bound_port()};
  ASSERT_TRUE(headers.send("GET /echo HTTP/1.1\r\nHost: x\r\n"));
  ASSERT_TRUE(body.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"
                        + std::string(100, 'x')));
  EXPECT_TRUE(eventually([&] { return s->input_budget()->used() > 0; }));
  auto done = std::async(std::launch::async, [&] { return timed_stop(*s); });
  // A client trickling bytes does not hold the stop past the deadline.
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(milliseconds{50});
    headers.send("X");
    body.send("3");
  }
  for (auto* c : {&headers, &body}) {
    auto resp = c->read_response();
    ASSERT_TRUE(resp.has_value()) << (c == &headers ? "headers: " : "body: ") << c->unread();
    EXPECT_EQ(resp->status, 503);
    EXPECT_EQ(test::field(*resp, "Connection"), "close");
  }
  EXPECT_LT(done.get(), milliseconds{3'000});
  EXPECT_EQ(s->stats()->timed_out(connection_timeout::drain), 2);
}

TEST_F(server_policy, a_stop_under_a_client_that_never_reads_ends_at_the_drain_deadline) {
  auto o = options();
  auto s = test::start_server(handler_, o);
  raw_client client{s->bound_port()};
  ASSERT_TRUE(client.send(make_request("GET", "/bytes/67108864")));
  EXPECT_TRUE(eventually([&] { return s->stats()->response_bytes.load() > 0; }));
  EXPECT_LT(timed_stop(*s), milliseconds{3'000});
  EXPECT_EQ(s->stats()->timed_out(connection_timeout::drain), 1);
}

TEST_F(server_policy, a_stop_closes_idle_connections_at_once) {
  auto o = options();
  o.policy.drain_timeout = milliseconds{10'000};
  auto s = test::start_server(handler_, o);
  raw_client fresh{s->bound_port()};
  raw_client served{s->bound_port()};
  ASSERT_TRUE(served.send(make_request("GET", "/echo")));
  ASSERT_TRUE(served.read_response().has_value());
  EXPECT_TRUE(eventually([&] { return s->stats()->open.load() == 2; }));
  EXPECT_LT(timed_stop(*s), milliseconds{3'000});
  EXPECT_TRUE(fresh.wait_closed());
  EXPECT_TRUE(served.wait_closed());
}

TEST_F(server_policy, the_stop_timeout_bounds_a_stop_under_slow_clients_whatever_the_drain) {
  for (auto drain : {milliseconds{10'000}, milliseconds{0}}) {
    auto o = options();
    o.policy.drain_timeout = drain;  // 0: no drain deadline of its own
    o.stop_timeout = milliseconds{600};
    auto s = test::start_server(handler_, o);
    raw_client sender{s->bound_port()};
    raw_client reader{s->bound_port()};
    ASSERT_TRUE(sender.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"
                            + std::string(100, 'x')));
    ASSERT_TRUE(reader.send(make_request("GET", "/bytes/67108864")));
    EXPECT_TRUE(eventually([&] {
      return s->input_budget()->used() > 0 && s->stats()->response_bytes.load() > 0;
    }));
    auto done = std::async(std::launch::async, [&] { return timed_stop(*s); });
    // The request cut short hears 503 before the stop ends.
    auto resp = sender.read_response();
    ASSERT_TRUE(resp.has_value()) << sender.unread();
    EXPECT_EQ(resp->status, 503);
    EXPECT_LT(done.get(), milliseconds{1'500}) << "drain_timeout " << drain.count() << " ms";
    EXPECT_EQ(s->stats()->timed_out(connection_timeout::drain), 2);
  }
}

TEST(server_options_check, refuses_negative_timeouts) {
  auto o = test::test_options();
  o.policy.body_timeout = milliseconds{-1};
  auto st = check(o);
  EXPECT_FALSE(st.is_ok());
  EXPECT_EQ(st.message(), "body_timeout must not be negative, got -1 ms");
  o = test::test_options();
  o.stop_timeout = milliseconds{-5};
  EXPECT_EQ(check(o).message(), "stop_timeout must not be negative, got -5 ms");
}

} // namespace
} // namespace conch::transports::http
