// Body limits, content codings and malformed input, on the wire.
#include <gtest/gtest.h>
#include <zlib.h>

#include "conch/transports/http/server.hpp"
#include "conch/transports/http/test/raw_client.hpp"
#include "conch/transports/http/test/test_handler.hpp"

namespace conch::transports::http {
namespace {

using test::make_request;
using test::raw_client;

constexpr size_t limit = 1024;

std::string zlib_encode(const std::string& text, int window_bits) {
  z_stream zs{};
  deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, text.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string zlib_decode(const std::string& data, int window_bits) {
  z_stream zs{};
  inflateInit2(&zs, window_bits);
  std::string out(1 << 20, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  inflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  inflateEnd(&zs);
  return out;
}

class server_limits : public ::testing::Test {
 protected:
  static server_options options() {
    auto opts = test::test_options();
    opts.max_input_size = limit;
    return opts;
  }
  std::shared_ptr<test::test_handler> handler_ = std::make_shared<test::test_handler>();
  std::unique_ptr<server> server_ = test::start_server(handler_, options());
  uint16_t port() const { return server_->bound_port(); }

  // Sends `bytes`, expects one answer with `status`, and returns it.
  test::raw_response exchange(raw_client& client, const std::string& bytes, int status) {
    EXPECT_TRUE(client.send(bytes));
    auto resp = client.read_response();
    EXPECT_TRUE(resp.has_value());
    if (!resp)
      return {};
    EXPECT_EQ(resp->status, status) << resp->body;
    return *resp;
  }
};

TEST_F(server_limits, body_at_the_limit_is_accepted) {
  raw_client client{port()};
  auto resp = exchange(client, make_request("POST", "/echo", std::string(limit, 'x')), 200);
  EXPECT_EQ(resp.body.size(), limit);
}

TEST(server_refusals, a_protocol_words_the_transports_own_refusals) {
  auto opts = test::test_options();
  opts.max_input_size = limit;
  opts.refusal_answer = [](int status, std::string_view message,
                           std::optional<runtime::statistics::request_refusal> why) {
    bool size = why == runtime::statistics::request_refusal::body_size;
    return response::text(size ? 413 : status,
                          std::string{size ? "too big: " : "other: "} + std::string{message});
  };
  auto handler = std::make_shared<test::test_handler>();
  auto s = test::start_server(handler, opts);
  raw_client client{s->bound_port()};
  ASSERT_TRUE(client.send(make_request("POST", "/echo", std::string(2 * limit, 'x'))));
  auto resp = client.read_response();
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->status, 413);
  EXPECT_EQ(resp->body.rfind("too big: Request JSON size of 2048 bytes", 0), 0u) << resp->body;
  raw_client bad{s->bound_port()};
  ASSERT_TRUE(bad.send("NOT HTTP\r\n\r\n"));
  auto malformed = bad.read_response();
  ASSERT_TRUE(malformed);
  EXPECT_EQ(malformed->status, 400);
  EXPECT_EQ(malformed->body.rfind("other: malformed HTTP request", 0), 0u) << malformed->body;
}

TEST_F(server_limits, content_length_over_the_limit_is_400_and_closes) {
  raw_client client{port()};
  auto resp = exchange(client, make_request("POST", "/echo", std::string(4 * limit, 'x')), 400);
  EXPECT_EQ(resp.body, R"({"error":"Request JSON size of 4096 bytes exceeds the maximum allowed value of 1024 bytes. Use --http-max-input-size to increase the limit."})");
  EXPECT_EQ(test::field(resp, "Connection"), "close");
  EXPECT_TRUE(client.wait_closed());
}

TEST_F(server_limits, expect_continue_over_the_limit_is_400_without_100) {
  raw_client client{port()};
  auto resp = exchange(client, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n"
                               "Expect: 100-continue\r\n\r\n", 400);
  EXPECT_NE(resp.body.find("exceeds the maximum allowed value"), std::string::npos);
  EXPECT_TRUE(client.wait_closed());
}

TEST_F(server_limits, chunked_body_over_the_limit_is_400_and_closes) {
  raw_client client{port()};
  std::string chunk(600, 'y');
  std::string bytes = "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 3; ++i)
    bytes += "258\r\n" + chunk + "\r\n";
  bytes += "0\r\n\r\n";
  auto resp = exchange(client, bytes, 400);
  EXPECT_EQ(resp.body, R"({"error":"Request JSON size exceeds the maximum allowed value of 1024 bytes. Use --http-max-input-size to increase the limit."})");
  EXPECT_TRUE(client.wait_closed());
}

TEST_F(server_limits, a_chunk_larger_than_the_limit_is_400_before_its_bytes) {
  raw_client client{port()};
  // 2^63 bytes announced, none sent: refused now, not at the body timeout.
  auto resp = exchange(client,
                       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                       "8000000000000000\r\n",
                       400);
  EXPECT_EQ(resp.body, R"({"error":"Request JSON size exceeds the maximum allowed value of 1024 bytes. Use --http-max-input-size to increase the limit."})");
  EXPECT_TRUE(client.wait_closed());
}

TEST_F(server_limits, trailer_fields_are_not_headers) {
  raw_client client{port()};
  // A trailer saying the body is gzip: were it taken as a header, the body
  // would fail to inflate (and a restricted group's key could come this way).
  auto resp = exchange(client,
                       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                       "5\r\nhello\r\n0\r\nContent-Encoding: gzip\r\nX-Key: s3cret\r\n\r\n",
                       200);
  EXPECT_EQ(resp.body, "hello");
}

TEST_F(server_limits, gzip_body_is_decoded) {
  raw_client client{port()};
  std::string text(900, 'g');
  auto resp = exchange(client, make_request("POST", "/echo", zlib_encode(text, 15 + 16),
                                            "Content-Encoding: gzip\r\n"), 200);
  EXPECT_EQ(resp.body, text);
  EXPECT_EQ(test::field(resp, "X-Content-Encoding"), "gzip");
}

TEST_F(server_limits, deflate_body_is_decoded) {
  raw_client client{port()};
  std::string text = "{\"inputs\":[]} deflated";
  auto resp = exchange(client, make_request("POST", "/echo", zlib_encode(text, 15),
                                            "Content-Encoding: deflate\r\n"), 200);
  EXPECT_EQ(resp.body, text);
}

TEST_F(server_limits, decompressed_size_over_the_limit_is_400) {
  raw_client client{port()};
  auto resp = exchange(client, make_request("POST", "/echo", zlib_encode(std::string(8 * limit, 0), 31),
                                            "Content-Encoding: gzip\r\n"), 400);
  EXPECT_EQ(resp.body, R"({"error":"Decompressed request size exceeds the maximum allowed value of 1024 bytes. Use --http-max-input-size to increase the limit."})");
}

TEST_F(server_limits, corrupt_gzip_is_400) {
  raw_client client{port()};
  auto resp = exchange(client, make_request("POST", "/echo", "certainly not gzip",
                                            "Content-Encoding: gzip\r\n"), 400);
  EXPECT_EQ(resp.body, R"({"error":"request body is not valid gzip data"})");
  // A bad body leaves the framing intact: the connection is still usable.
  exchange(client, make_request("GET", "/echo"), 200);
}

TEST_F(server_limits, unknown_content_encoding_is_501_with_accept_encoding) {
  raw_client client{port()};
  auto resp = exchange(client, make_request("POST", "/echo", "abc", "Content-Encoding: br\r\n"), 501);
  EXPECT_EQ(resp.body, R"({"error":"Unsupported compression type"})");
  EXPECT_EQ(test::field(resp, "Accept-Encoding"), "gzip, deflate");
}

TEST_F(server_limits, malformed_request_is_400_and_closes) {
  raw_client client{port()};
  auto resp = exchange(client, "THIS IS NOT HTTP\r\n\r\n", 400);
  EXPECT_EQ(resp.body.rfind(R"({"error":"malformed HTTP request: )", 0), 0u) << resp.body;
  EXPECT_TRUE(client.wait_closed());
}

TEST_F(server_limits, answers_before_a_malformed_request_still_arrive) {
  raw_client client{port()};
  ASSERT_TRUE(client.send(make_request("POST", "/echo", "first") + "GARBAGE\r\n\r\n"));
  auto first = client.read_response();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->body, "first");
  auto second = client.read_response();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 400);
  EXPECT_TRUE(client.wait_closed());
}

TEST_F(server_limits, oversized_header_block_is_431) {
  raw_client client{port()};
  auto resp = exchange(client, make_request("GET", "/echo", {},
                                            "X-Big: " + std::string(70 * 1024, 'h') + "\r\n"), 431);
  EXPECT_TRUE(client.wait_closed());
}

TEST_F(server_limits, response_is_compressed_for_accept_encoding) {
  for (auto [coding, bits] : {std::pair{"gzip", 31}, std::pair{"deflate", 15}}) {
    raw_client client{port()};
    auto resp = exchange(client, make_request("GET", "/compress", {},
                                              std::string{"Accept-Encoding: "} + coding + "\r\n"), 200);
    EXPECT_EQ(test::field(resp, "Content-Encoding"), coding);
    EXPECT_LT(resp.body.size(), test::test_handler::compress_body().size());
    EXPECT_EQ(zlib_decode(resp.body, bits), test::test_handler::compress_body());
  }
  raw_client plain{port()};
  auto resp = exchange(plain, make_request("GET", "/compress"), 200);
  EXPECT_FALSE(resp.headers.contains("Content-Encoding"));
  EXPECT_EQ(resp.body, test::test_handler::compress_body());
}

} // namespace
} // namespace conch::transports::http
