// HTTP/1.1 behaviour of the transport, checked with raw bytes on a socket.
#include <thread>

#include <gtest/gtest.h>

#include "conch/transports/http/server.hpp"
#include "conch/transports/http/test/raw_client.hpp"
#include "conch/transports/http/test/test_handler.hpp"

namespace conch::transports::http {
namespace {

using test::make_request;
using test::raw_client;

class server_protocol : public ::testing::Test {
 protected:
  std::shared_ptr<test::test_handler> handler_ = std::make_shared<test::test_handler>();
  std::unique_ptr<server> server_ = test::start_server(handler_);
  uint16_t port() const { return server_->bound_port(); }
};

TEST_F(server_protocol, keep_alive_serves_several_requests_on_one_connection) {
  raw_client client{port()};
  ASSERT_TRUE(client.connected());
  for (int i = 0; i < 3; ++i) {
    auto body = "body " + std::to_string(i);
    ASSERT_TRUE(client.send(make_request("POST", "/echo", body)));
    auto resp = client.read_response();
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->status, 200);
    EXPECT_EQ(resp->version, "HTTP/1.1");
    EXPECT_EQ(resp->body, body);
    EXPECT_EQ(test::field(*resp, "X-Keep-Alive"), "1");
    EXPECT_FALSE(resp->headers.contains("Connection"));
  }
}

TEST_F(server_protocol, path_is_split_decoded_and_query_dropped) {
  raw_client client{port()};
  ASSERT_TRUE(client.send(make_request("GET", "/echo/models/a%20b%2Fc/infer?x=1&y=%zz")));
  auto resp = client.read_response();
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(test::field(*resp, "X-Segments"), "echo|models|a b/c|infer");
  EXPECT_EQ(test::field(*resp, "X-Method"), "GET");
}

TEST_F(server_protocol, bad_percent_escape_is_400_with_json_error) {
  raw_client client{port()};
  ASSERT_TRUE(client.send(make_request("GET", "/echo/a%zz")));
  auto resp = client.read_response();
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->status, 400);
  EXPECT_EQ(test::field(*resp, "Content-Type"), "application/json");
  EXPECT_EQ(resp->body, R"({"error":"malformed percent-encoding in request path"})");
  EXPECT_TRUE(client.wait_closed());
}

TEST_F(server_protocol, connection_close_is_honoured) {
  raw_client client{port()};
  ASSERT_TRUE(client.send(make_request("GET", "/echo", {}, "Connection: close\r\n")));
  auto resp = client.read_response();
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(test::field(*resp, "Connection"), "close");
  EXPECT_TRUE(client.wait_closed());
}

TEST_F(server_protocol, http10_is_answered_as_http10_and_closed) {
  raw_client client{port()};
  ASSERT_TRUE(client.send("GET /echo HTTP/1.0\r\n\r\n"));
  auto resp = client.read_response();
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->version, "HTTP/1.0");
  EXPECT_EQ(resp->status, 200);
  EXPECT_TRUE(client.wait_closed());
}

TEST_F(server_protocol, pipelined_answers_keep_request_order) {
  raw_client client{port()};
  ASSERT_TRUE(client.send(make_request("POST", "/hold", "1") + make_request("POST", "/hold", "2")
                          + make_request("POST", "/hold", "3")));
  auto held = handler_->take_held(3);
  ASSERT_EQ(held.size(), 3u);
  // Answer from another thread, last request first.
  std::thread answerer{[&] {
    for (int i : {2, 0, 1}) {
      auto body = "answer " + std::string(reinterpret_cast<const char*>(held[i].req->body.data()),
                                           held[i].req->body.size());
      held[i].res.send(response::text(200, body));
    }
  }};
  answerer.join();
  for (auto expected : {"answer 1", "answer 2", "answer 3"}) {
    auto resp = client.read_response();
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->status, 200);
    EXPECT_EQ(resp->body, expected);
  }
}

TEST_F(server_protocol, chunked_request_body_is_assembled) {
  raw_client client{port()};
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                          "5\r\nhello\r\n1\r\n \r\nb\r\nchunked wor\r\n2\r\nld\r\n0\r\n\r\n"));
  auto resp = client.read_response();
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(resp->body, "hello chunked world");
}

TEST_F(server_protocol, expect_continue_gets_100_before_the_body_is_sent) {
  raw_client client{port()};
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n"
                          "Expect: 100-continue\r\n\r\n"));
  auto interim = client.read_response();
  ASSERT_TRUE(interim);
  EXPECT_EQ(interim->status, 100);
  ASSERT_TRUE(client.send("12345"));
  auto resp = client.read_response();
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(resp->body, "12345");
}

TEST_F(server_protocol, dropped_responder_answers_500) {
  raw_client client{port()};
  ASSERT_TRUE(client.send(make_request("GET", "/drop")));
  auto resp = client.read_response();
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->status, 500);
  EXPECT_EQ(resp->body, R"({"error":"the request was dropped without a response"})");
  // The connection stays usable.
  ASSERT_TRUE(client.send(make_request("GET", "/echo")));
  auto next = client.read_response();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, 200);
}

TEST_F(server_protocol, head_gets_content_length_but_no_body) {
  raw_client client{port()};
  ASSERT_TRUE(client.send(make_request("HEAD", "/compress") + make_request("GET", "/echo")));
  // The HEAD answer carries no body, so the next response follows its head.
  ASSERT_TRUE(client.wait_for("\r\n\r\nHTTP/1.1 200 OK"));
  EXPECT_NE(client.unread().find("Content-Length: " + std::to_string(
                                     test::test_handler::compress_body().size())),
            std::string::npos);
}

TEST_F(server_protocol, many_connections_are_served_by_all_loops) {
  std::vector<std::unique_ptr<raw_client>> clients;
  for (int i = 0; i < 8; ++i) {
    clients.push_back(std::make_unique<raw_client>(port()));
    ASSERT_TRUE(clients.back()->send(make_request("POST", "/echo", std::to_string(i))));
  }
  for (int i = 0; i < 8; ++i) {
    auto resp = clients[i]->read_response();
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->body, std::to_string(i));
  }
}

TEST_F(server_protocol, a_request_sent_byte_by_byte_is_parsed) {
  raw_client client{port()};
  for (char c : make_request("POST", "/echo", "split body"))
    ASSERT_TRUE(client.send(std::string(1, c)));
  auto resp = client.read_response();
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->body, "split body");
}

TEST(server_backpressure, pipelining_past_the_limit_resumes_as_answers_leave) {
  auto handler = std::make_shared<test::test_handler>();
  auto opts = test::test_options();
  opts.max_pipelined_requests = 2;
  auto s = test::start_server(handler, opts);
  raw_client client{s->bound_port()};
  std::string burst;
  for (int i = 1; i <= 5; ++i)
    burst += make_request("POST", "/hold", std::to_string(i));
  ASSERT_TRUE(client.send(burst));
  int answered = 0;
  while (answered < 5) {
    auto held = handler->take_held(1);
    ASSERT_FALSE(held.empty());
    for (auto& h : held) {
      std::string body(reinterpret_cast<const char*>(h.req->body.data()), h.req->body.size());
      h.res.send(response::text(200, "answer " + body));
      ++answered;
    }
  }
  for (int i = 1; i <= 5; ++i) {
    auto resp = client.read_response();
    ASSERT_TRUE(resp);
    EXPECT_EQ(resp->body, "answer " + std::to_string(i));
  }
}

} // namespace
} // namespace conch::transports::http
