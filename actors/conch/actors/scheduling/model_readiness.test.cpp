#include "conch/actors/scheduling/model_readiness.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

namespace conch::actors {
namespace {

/// A probe that holds each query until the test answers it.
class held_probe final : public runtime::backends::readiness_probe {
 public:
  void probe(std::function<void(bool)> done) override { asked.push_back(std::move(done)); }
  std::vector<std::function<void(bool)>> asked;
};

struct answer {
  int calls = 0;
  std::optional<bool> ready;
  std::function<void(bool)> sink() {
    return [this](bool r) {
      ++calls;
      ready = r;
    };
  }
};

TEST(model_readiness, a_version_without_probes_is_ready_at_once) {
  model_readiness board{2};
  answer a;
  board.check(a.sink());
  EXPECT_EQ(a.calls, 1);
  EXPECT_EQ(a.ready, true);
}

TEST(model_readiness, ready_only_once_every_probe_said_so) {
  model_readiness board{2};
  auto p0 = std::make_shared<held_probe>();
  auto p1 = std::make_shared<held_probe>();
  board.set(0, p0);
  board.set(1, p1);
  answer a;
  board.check(a.sink());
  ASSERT_EQ(p0->asked.size(), 1u);
  ASSERT_EQ(p1->asked.size(), 1u);
  p0->asked[0](true);
  EXPECT_EQ(a.calls, 0) << "one instance has not answered";
  p1->asked[0](true);
  EXPECT_EQ(a.calls, 1);
  EXPECT_EQ(a.ready, true);
}

TEST(model_readiness, the_first_not_ready_answers_and_later_answers_are_ignored) {
  model_readiness board{2};
  auto p0 = std::make_shared<held_probe>();
  auto p1 = std::make_shared<held_probe>();
  board.set(0, p0);
  board.set(1, p1);
  answer a;
  board.check(a.sink());
  p1->asked[0](false);
  EXPECT_EQ(a.calls, 1);
  EXPECT_EQ(a.ready, false);
  p0->asked[0](true);
  EXPECT_EQ(a.calls, 1) << "answered once";
}

TEST(model_readiness, a_cleared_instance_is_no_longer_asked) {
  model_readiness board{1};
  auto p = std::make_shared<held_probe>();
  board.set(0, p);
  board.clear(0);
  answer a;
  board.check(a.sink());
  EXPECT_TRUE(p->asked.empty());
  EXPECT_EQ(a.ready, true);
  board.set(7, p); // out of range: ignored
  board.check(a.sink());
  EXPECT_TRUE(p->asked.empty());
}

} // namespace
} // namespace conch::actors
