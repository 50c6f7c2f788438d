#include "conch/transports/grpc/spare_nodes.hpp"

#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include <gtest/gtest.h>

namespace conch::transports::grpc {
namespace {

TEST(spare_nodes, a_kept_node_holds_the_next_entry_without_a_new_allocation) {
  std::map<int, std::string> map;
  spare_nodes<std::map<int, std::string>> spare;
  spare.insert(map, 1, "one");
  const auto* first = &*map.find(1);
  spare.keep(map.extract(1));
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(spare.size(), 1u);
  spare.insert(map, 2, "two");
  EXPECT_EQ(spare.size(), 0u);
  ASSERT_EQ(map.size(), 1u);
  EXPECT_EQ(map.at(2), "two");
  EXPECT_EQ(&*map.find(2), first);  // the same node
}

TEST(spare_nodes, keeps_at_most_its_capacity_and_ignores_empty_handles) {
  std::unordered_map<int, std::unique_ptr<int>> map;
  spare_nodes<std::unordered_map<int, std::unique_ptr<int>>, 2> spare;
  for (int i = 0; i < 5; ++i)
    spare.insert(map, i, std::make_unique<int>(i));
  for (int i = 0; i < 5; ++i)
    spare.keep(map.extract(i));
  spare.keep(map.extract(42));  // absent: an empty handle
  EXPECT_EQ(spare.size(), 2u);
  for (int i = 10; i < 13; ++i)
    spare.insert(map, i, std::make_unique<int>(i));
  EXPECT_EQ(spare.size(), 0u);
  ASSERT_EQ(map.size(), 3u);
  for (int i = 10; i < 13; ++i)
    EXPECT_EQ(*map.at(i), i);
}

TEST(spare_nodes, an_insert_under_a_present_key_changes_nothing_and_keeps_the_node) {
  std::map<int, std::string> map;
  spare_nodes<std::map<int, std::string>> spare;
  spare.insert(map, 1, "one");
  spare.insert(map, 2, "two");
  spare.keep(map.extract(2));
  spare.insert(map, 1, "uno");
  EXPECT_EQ(map.at(1), "one");
  EXPECT_EQ(map.size(), 1u);
  EXPECT_EQ(spare.size(), 1u);
}

TEST(spare_nodes, a_kept_node_lets_go_of_what_its_value_held) {
  std::map<int, std::shared_ptr<int>> map;
  spare_nodes<std::map<int, std::shared_ptr<int>>> spare;
  auto held = std::make_shared<int>(7);
  spare.insert(map, 1, held);
  EXPECT_EQ(held.use_count(), 2);
  spare.keep(map.extract(1));
  EXPECT_EQ(held.use_count(), 1);
  spare.insert(map, 1, std::make_shared<int>(8));
  spare.insert(map, 1, held);  // present: not inserted, and not held either
  EXPECT_EQ(held.use_count(), 1);
  EXPECT_EQ(*map.at(1), 8);
}

} // namespace
} // namespace conch::transports::grpc
