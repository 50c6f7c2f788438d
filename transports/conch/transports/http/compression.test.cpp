#include "conch/transports/http/compression.hpp"

#include <gtest/gtest.h>

#include "conch/transports/http/body_decoding.hpp"

namespace conch::transports::http {
namespace {

std::string text_of(const runtime::buffer& b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

runtime::buffer buffer_of(const std::string& s) {
  return runtime::buffer::copy_of(s.data(), s.size());
}

TEST(negotiate_coding, picks_the_highest_weight) {
  EXPECT_EQ(negotiate_coding(""), content_coding::identity);
  EXPECT_EQ(negotiate_coding("gzip"), content_coding::gzip);
  EXPECT_EQ(negotiate_coding("deflate"), content_coding::deflate);
  EXPECT_EQ(negotiate_coding("gzip;q=0.5, deflate"), content_coding::deflate);
  EXPECT_EQ(negotiate_coding("gzip, deflate"), content_coding::gzip);
  EXPECT_EQ(negotiate_coding("deflate, gzip"), content_coding::deflate);
  EXPECT_EQ(negotiate_coding("identity;q=1, gzip;q=0.5"), content_coding::identity);
  EXPECT_EQ(negotiate_coding("gzip;q=0"), content_coding::identity);
  EXPECT_EQ(negotiate_coding("br"), content_coding::identity);
  EXPECT_EQ(negotiate_coding("*"), content_coding::identity);  // a tie: no work
  EXPECT_EQ(negotiate_coding("*;q=0.5, gzip"), content_coding::gzip);
  EXPECT_EQ(negotiate_coding("GZIP ; Q=0.8"), content_coding::gzip);
}

TEST(content_coding, round_trips_gzip_and_deflate_over_several_buffers) {
  std::vector<runtime::buffer> body{buffer_of(std::string(5000, 'a')), buffer_of("tail")};
  for (auto coding : {content_coding::gzip, content_coding::deflate}) {
    auto encoded = encode_body(coding, body);
    ASSERT_TRUE(encoded);
    EXPECT_LT(encoded->size(), 5004u);
    auto decoded = decode_body(coding, *encoded, 1 << 20);
    ASSERT_TRUE(decoded) << decoded.error().to_string();
    EXPECT_EQ(text_of(*decoded), std::string(5000, 'a') + "tail");
  }
}

TEST(content_coding, decoding_is_bounded) {
  auto encoded = encode_body(content_coding::gzip, {buffer_of(std::string(4097, 'z'))});
  ASSERT_TRUE(encoded);
  EXPECT_TRUE(decode_body(content_coding::gzip, *encoded, 4097));
  auto over = decode_body(content_coding::gzip, *encoded, 4096);
  EXPECT_EQ(over.error().code(), runtime::errc::invalid_argument);
}

TEST(content_coding, a_budget_tighter_than_the_size_limit_makes_it_unavailable) {
  auto encoded = encode_body(content_coding::gzip, {buffer_of(std::string(1 << 20, 'z'))});
  ASSERT_TRUE(encoded);
  EXPECT_TRUE(decode_body(content_coding::gzip, *encoded, 1 << 21, 1 << 20));
  auto over = decode_body(content_coding::gzip, *encoded, 1 << 21, 1000);
  EXPECT_EQ(over.error().code(), runtime::errc::unavailable);
  // Where the size limit is the tighter one, the body is too large.
  over = decode_body(content_coding::gzip, *encoded, 1000, 1 << 21);
  EXPECT_EQ(over.error().code(), runtime::errc::invalid_argument);
}

TEST(decode_request_body, a_body_that_inflates_past_the_budget_gets_503) {
  auto budget = std::make_shared<runtime::statistics::byte_budget>(64 * 1024);
  ASSERT_TRUE(budget->try_take(16 * 1024));  // another request holds some
  request req;
  req.headers.add("Content-Encoding", "gzip");
  req.body = *encode_body(content_coding::gzip, {buffer_of(std::string(60 * 1024, 'a'))});
  auto refusal = decode_request_body(req, 1 << 20, budget);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 503);
  EXPECT_EQ(budget->used(), 16 * 1024);
  budget->give(16 * 1024);
  EXPECT_FALSE(decode_request_body(req, 1 << 20, budget));
  EXPECT_EQ(req.body.size(), 60u * 1024);
  EXPECT_EQ(budget->used(), 60 * 1024);
}

TEST(decode_request_body, its_own_encoded_bytes_make_room_for_the_decoded_ones) {
  request req;
  req.headers.add("Content-Encoding", "gzip");
  req.body = *encode_body(content_coding::gzip, {buffer_of(std::string(60 * 1024, 'a'))});
  // The decoded body fits the budget only once the encoded one is given back.
  auto budget = std::make_shared<runtime::statistics::byte_budget>(60 * 1024 + 50);
  ASSERT_GT(req.body.size(), 50u);
  ASSERT_TRUE(req.input_bytes.take(budget, req.body.size()));
  EXPECT_FALSE(decode_request_body(req, budget->limit(), budget));
  EXPECT_EQ(req.body.size(), 60u * 1024);
  EXPECT_EQ(budget->used(), 60 * 1024);
}

TEST(decode_request_body, a_body_that_decodes_past_the_whole_budget_is_too_large_not_busy) {
  request req;
  req.headers.add("Content-Encoding", "gzip");
  req.body = *encode_body(content_coding::gzip, {buffer_of(std::string(100 * 1024, 'a'))});
  auto budget = std::make_shared<runtime::statistics::byte_budget>(64 * 1024);
  ASSERT_TRUE(req.input_bytes.take(budget, req.body.size()));
  // As the connection passes it: max_input_size, or the whole budget where smaller.
  auto refusal = decode_request_body(req, budget->limit(), budget);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 400);
}

TEST(content_coding, truncated_input_is_invalid) {
  auto encoded = encode_body(content_coding::deflate, {buffer_of(std::string(3000, 'q'))});
  ASSERT_TRUE(encoded);
  auto cut = encoded->slice(0, encoded->size() / 2);
  EXPECT_EQ(decode_body(content_coding::deflate, cut, 1 << 20).error().message(),
            "request body is not valid deflate data");
}

TEST(content_coding, unknown_names_are_unsupported) {
  EXPECT_EQ(*parse_content_coding(""), content_coding::identity);
  EXPECT_EQ(*parse_content_coding("Identity"), content_coding::identity);
  EXPECT_EQ(*parse_content_coding(" GZIP "), content_coding::gzip);
  EXPECT_EQ(parse_content_coding("br").error().code(), runtime::errc::unsupported);
}

TEST(compress_for, sets_content_encoding_only_when_asked) {
  request req;
  req.headers.add("Accept-Encoding", "deflate");
  auto resp = response::text(200, std::string(2000, 'x'));
  compress_for(req, resp);
  ASSERT_NE(resp.headers.find("Content-Encoding"), nullptr);
  EXPECT_EQ(*resp.headers.find("Content-Encoding"), "deflate");
  ASSERT_EQ(resp.body.size(), 1u);
  EXPECT_EQ(text_of(*decode_body(content_coding::deflate, resp.body[0], 1 << 20)),
            std::string(2000, 'x'));

  request plain;
  auto untouched = response::text(200, "abc");
  compress_for(plain, untouched);
  EXPECT_FALSE(untouched.headers.contains("Content-Encoding"));
}

TEST(decode_request_body, answers_501_for_unknown_codings) {
  request req;
  req.headers.add("Content-Encoding", "zstd");
  req.body = buffer_of("abc");
  auto refusal = decode_request_body(req, 100);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 501);
  EXPECT_EQ(*refusal->headers.find("Accept-Encoding"), "gzip, deflate");
}

} // namespace
} // namespace conch::transports::http
