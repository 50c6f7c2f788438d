#include "conch/transports/http/kserve/codec/binary_extension.hpp"

#include <gtest/gtest.h>

#include "conch/transports/http/kserve/codec/test/codec_test_util.hpp"

namespace conch::transports::http::kserve::codec {
namespace {

using runtime::errc;

request_ptr with_header(std::string body, std::string value) {
  auto req = test::make_request(std::move(body));
  req->headers.add("inference-header-content-length", std::move(value));
  return req;
}

TEST(binary_extension, without_the_header_the_whole_body_is_json) {
  auto req = test::make_request("{\"inputs\":[]}");
  auto e = read_json_header_extent(*req);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->length, 13u);
  EXPECT_FALSE(e->declared);
}

TEST(binary_extension, the_header_gives_the_json_length) {
  for (auto value : {"5", " 5 ", "0", "10"}) {
    auto e = read_json_header_extent(*with_header("0123456789", value));
    ASSERT_TRUE(e) << value;
    EXPECT_TRUE(e->declared);
    EXPECT_EQ(e->length, std::stoul(value));
  }
}

TEST(binary_extension, a_bad_header_is_invalid_argument) {
  struct bad_case {
    const char* value;
    const char* message;
  };
  const bad_case cases[] = {
    {"abc", "Unable to parse Inference-Header-Content-Length, got: abc"},
    {"", "Unable to parse Inference-Header-Content-Length, got: "},
    {"12x", "Unable to parse Inference-Header-Content-Length, got: 12x"},
    {"11", "inference header size should be in range (0, 10), got: 11"},
    {"-1", "inference header size should be in range (0, 10), got: -1"},
    {"99999999999999999999999", "inference header size should be in range (0, 10), got: "
                                "99999999999999999999999"},
  };
  for (const auto& c : cases) {
    auto e = read_json_header_extent(*with_header("0123456789", c.value));
    ASSERT_FALSE(e) << c.value;
    EXPECT_EQ(e.error().code(), errc::invalid_argument);
    EXPECT_EQ(e.error().message(), c.message);
  }
}

TEST(binary_extension, sections_are_slices_of_the_body_in_order) {
  auto req = test::make_request("{}", "aaabbbbc");
  binary_section s{req->body, 2};
  auto a = s.take(3, "A", "m");
  auto b = s.take(4, "B", "m");
  auto empty = s.take(0, "E", "m");
  ASSERT_TRUE(a && b && empty);
  EXPECT_EQ(a->data(), req->body.data() + 2);
  EXPECT_EQ(b->data(), req->body.data() + 5);
  EXPECT_EQ(a->owner(), req->body.owner());
  EXPECT_EQ(test::text_of(*b), "bbbb");
  EXPECT_EQ(empty->size(), 0u);
  auto left = s.finish("m");
  ASSERT_FALSE(left);
  EXPECT_EQ(left.message(), "unexpected additional input data for model 'm'");
  ASSERT_TRUE(s.take(1, "C", "m"));
  EXPECT_TRUE(s.finish("m"));
}

TEST(binary_extension, a_short_section_names_the_missing_bytes) {
  auto req = test::make_request("{}", "abc");
  binary_section s{req->body, 2};
  auto r = s.take(5, "IN", "simple");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), errc::invalid_argument);
  EXPECT_EQ(r.error().message(),
            "unexpected size for input 'IN', expecting 2 additional bytes for model 'simple'");
}

} // namespace
} // namespace conch::transports::http::kserve::codec
