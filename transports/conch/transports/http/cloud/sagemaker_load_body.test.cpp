#include "conch/transports/http/cloud/sagemaker_load_body.hpp"

#include <string>

#include <gtest/gtest.h>

#include "conch/transports/http/kserve/test/post_with_body.hpp"

namespace conch::transports::http::cloud {
namespace {

using kserve::test::with_body;
using runtime::errc;

TEST(sagemaker_load_body, reads_the_model_name_and_url) {
  auto b = parse_sagemaker_load_body(with_body(R"({"model_name":"m","url":"/opt/ml/models/m"})"));
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->model_name, "m");
  EXPECT_EQ(b->url, "/opt/ml/models/m");
}

TEST(sagemaker_load_body, a_missing_or_empty_member_is_invalid_argument) {
  auto no_url = parse_sagemaker_load_body(with_body(R"({"model_name":"m"})"));
  ASSERT_FALSE(no_url);
  EXPECT_EQ(no_url.error().message(), "the load request needs 'url', a non-empty string");
  auto empty = parse_sagemaker_load_body(with_body(R"({"model_name":"","url":"/x"})"));
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message(), "the load request needs 'model_name', a non-empty string");
}

TEST(sagemaker_load_body, a_depth_bomb_is_invalid_argument) {
  for (const auto& unit : {std::string{"["}, std::string{"{\"a\":"}}) {
    std::string body;
    while (body.size() < (1u << 20))
      body += unit;
    auto b = parse_sagemaker_load_body(with_body(body));
    ASSERT_FALSE(b);
    EXPECT_EQ(b.error().code(), errc::invalid_argument);
    EXPECT_NE(b.error().message().find("limit of 100 levels"), std::string::npos);
  }
}

} // namespace
} // namespace conch::transports::http::cloud
