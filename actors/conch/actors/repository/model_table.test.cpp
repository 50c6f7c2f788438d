#include "conch/actors/repository/model_table.hpp"

#include <gtest/gtest.h>

namespace conch::actors {
namespace {

model_table make_table() {
  model_table t;
  model_entry m;
  m.name = "m";
  m.versions.push_back({1, model_state::ready, "", nullptr});
  m.versions.push_back({2, model_state::ready, "", nullptr});
  m.versions.push_back({3, model_state::unavailable, "unloaded", nullptr});
  t.models.emplace("m", std::move(m));
  model_entry down;
  down.name = "down";
  down.versions.push_back({1, model_state::loading, "", nullptr});
  t.models.emplace("down", std::move(down));
  return t;
}

TEST(model_table, latest_ready_version_serves_version_minus_one) {
  auto t = make_table();
  auto v = t.resolve("m", -1);
  ASSERT_TRUE(v);
  EXPECT_EQ((*v)->version, 2);
}

TEST(model_table, errors_use_tritons_wording) {
  auto t = make_table();
  auto unknown = t.resolve("x", -1);
  EXPECT_EQ(unknown.error().code(), runtime::errc::not_found);
  EXPECT_EQ(unknown.error().message(), "Request for unknown model: 'x' is not found");
  auto missing = t.resolve("m", 7);
  EXPECT_EQ(missing.error().message(), "Request for unknown model: 'm' version 7 is not found");
  auto not_ready = t.resolve("m", 3);
  EXPECT_EQ(not_ready.error().code(), runtime::errc::unavailable);
  EXPECT_EQ(not_ready.error().message(), "'m' version 3 is not at ready state");
  auto none = t.resolve("down", -1);
  EXPECT_EQ(none.error().message(), "Request for unknown model: 'down' has no available versions");
}

TEST(model_table, state_names) {
  EXPECT_EQ(model_state_name(model_state::ready), "READY");
  EXPECT_EQ(model_state_name(model_state::unavailable), "UNAVAILABLE");
  EXPECT_EQ(model_state_name(model_state::loading), "LOADING");
  EXPECT_EQ(model_state_name(model_state::unloading), "UNLOADING");
}

} // namespace
} // namespace conch::actors
