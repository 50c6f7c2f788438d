#include "conch/transports/http/kserve/restrictions.hpp"

#include <gtest/gtest.h>

namespace conch::transports::http::kserve {
namespace {

TEST(restrictions, parses_every_feature_name) {
  for (auto [name, f] : {std::pair{"health", feature::health}, {"metadata", feature::metadata},
                         {"inference", feature::inference},
                         {"shared-memory", feature::shared_memory},
                         {"model-config", feature::model_config},
                         {"model-repository", feature::model_repository},
                         {"statistics", feature::statistics}, {"trace", feature::trace},
                         {"logging", feature::logging}})
    EXPECT_EQ(parse_feature(name), f) << name;
  EXPECT_FALSE(parse_feature("shared_memory"));
  EXPECT_FALSE(parse_feature("Health"));
}

TEST(restrictions, requires_the_header_and_its_exact_value) {
  auto r = restrictions::make({{"infer-key", "secret", {"inference", "shared-memory"}},
                               {"admin-key", "admin", {"model-repository"}}});
  ASSERT_TRUE(r) << r.error().to_string();
  header_map none;
  header_map good;
  good.add("Infer-Key", "secret");
  header_map wrong;
  wrong.add("infer-key", "Secret");
  EXPECT_EQ(r->missing_header(feature::inference, none), "infer-key");
  EXPECT_EQ(r->missing_header(feature::inference, wrong), "infer-key");
  EXPECT_EQ(r->missing_header(feature::inference, good), std::nullopt);
  EXPECT_EQ(r->missing_header(feature::shared_memory, good), std::nullopt);
  EXPECT_EQ(r->missing_header(feature::model_repository, good), "admin-key");
  EXPECT_EQ(r->missing_header(feature::health, none), std::nullopt);
  EXPECT_EQ(restrictions{}.missing_header(feature::inference, none), std::nullopt);
}

TEST(restrictions, refuses_bad_groups) {
  EXPECT_EQ(restrictions::make({{"k", "v", {"nope"}}}).error().code(),
            runtime::errc::invalid_argument);
  EXPECT_EQ(restrictions::make({{"k", "v", {"health"}}, {"k2", "v", {"health"}}}).error().code(),
            runtime::errc::invalid_argument);
  EXPECT_EQ(restrictions::make({{"", "v", {"health"}}}).error().code(),
            runtime::errc::invalid_argument);
  EXPECT_TRUE(restrictions::make({{"k", "", {}}}));
}

} // namespace
} // namespace conch::transports::http::kserve
