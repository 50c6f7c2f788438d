#include "conch/transports/protocol/restrictions.hpp"

#include <gtest/gtest.h>

namespace conch::transports::protocol {
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
}

TEST(restrictions, names_what_each_feature_requires) {
  auto r = restrictions::make({{"infer-key", "secret", {"inference", "shared-memory"}}});
  ASSERT_TRUE(r) << r.error().to_string();
  const auto* infer = r->required(feature::inference);
  ASSERT_NE(infer, nullptr);
  EXPECT_EQ(infer->key, "infer-key");
  EXPECT_EQ(infer->value, "secret");
  ASSERT_NE(r->required(feature::shared_memory), nullptr);
  EXPECT_EQ(r->required(feature::health), nullptr);
  EXPECT_EQ(restrictions{}.required(feature::inference), nullptr);
}

TEST(restrictions, refuses_bad_groups) {
  EXPECT_EQ(restrictions::make({{"k", "v", {"nope"}}}).error().code(),
            runtime::errc::invalid_argument);
  EXPECT_EQ(restrictions::make({{"k", "v", {"health"}}, {"k2", "v", {"health"}}}).error().code(),
            runtime::errc::invalid_argument);
  EXPECT_EQ(restrictions::make({{"", "v", {"health"}}}).error().code(),
            runtime::errc::invalid_argument);
}

} // namespace
} // namespace conch::transports::protocol
