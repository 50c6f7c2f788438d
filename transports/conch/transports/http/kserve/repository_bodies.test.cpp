#include "conch/transports/http/kserve/repository_bodies.hpp"

#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "conch/transports/http/kserve/test/post_with_body.hpp"

namespace conch::transports::http::kserve {
namespace {

using test::with_body;

TEST(repository_bodies, index) {
  EXPECT_FALSE(*parse_index_body(with_body("")));
  EXPECT_TRUE(*parse_index_body(with_body(R"({"ready":true})")));
  EXPECT_FALSE(*parse_index_body(with_body("{}")));
  EXPECT_FALSE(parse_index_body(with_body(R"({"ready":1})")));
  EXPECT_FALSE(parse_index_body(with_body("{")));
  EXPECT_FALSE(parse_index_body(with_body("[]")));
}

TEST(repository_bodies, load_with_config_and_files) {
  auto r = parse_load_body(with_body(
    R"({"parameters":{"config":"{\"backend\":\"identity\"}","file:1/a.bin":"AAEC","other":3}})"));
  ASSERT_TRUE(r) << r.error().to_string();
  ASSERT_TRUE(r->config_json);
  EXPECT_EQ(*r->config_json, R"({"backend":"identity"})");
  ASSERT_EQ(r->files.size(), 1u);
  EXPECT_EQ(r->files[0].first, "file:1/a.bin");
  EXPECT_EQ(r->files[0].second, std::string("\0\1\2", 3));
  EXPECT_TRUE(parse_load_body(with_body(""))->files.empty());
}

TEST(repository_bodies, load_refuses_bad_values) {
  auto bad_file = parse_load_body(with_body(R"({"parameters":{"file:1/a":"**"}})"));
  ASSERT_FALSE(bad_file);
  EXPECT_NE(bad_file.error().message().find("file:1/a"), std::string::npos);
  EXPECT_FALSE(parse_load_body(with_body(R"({"parameters":{"config":{}}})")));
  EXPECT_FALSE(parse_load_body(with_body(R"({"parameters":[]})")));
}

TEST(repository_bodies, unload) {
  EXPECT_FALSE(*parse_unload_body(with_body("")));
  EXPECT_TRUE(*parse_unload_body(with_body(R"({"parameters":{"unload_dependents":true}})")));
  EXPECT_FALSE(parse_unload_body(with_body(R"({"parameters":{"unload_dependents":"yes"}})")));
}

} // namespace
} // namespace conch::transports::http::kserve
