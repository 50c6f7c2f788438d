#include "conch/actors/scheduling/model_loader.hpp"

#include <chrono>
#include <future>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "conch/runtime/status.hpp"

namespace conch::actors {
namespace {

using namespace std::chrono_literals;
namespace backends = runtime::backends;

/// A model that reports the thread it is destroyed on.
class finalized_model : public backends::backend_model {
 public:
  finalized_model(bool blocking, std::promise<std::thread::id>& finalized_on)
    : blocking_(blocking), finalized_on_(finalized_on) {}
  ~finalized_model() override { finalized_on_.set_value(std::this_thread::get_id()); }

  runtime::result<std::unique_ptr<backends::backend_instance>>
  create_instance(const backends::instance_context&) override {
    return runtime::internal_error("no instances");
  }
  bool blocking() const noexcept override { return blocking_; }

 private:
  bool blocking_;
  std::promise<std::thread::id>& finalized_on_;
};

/// Loads `model` the way the scheduler does: on the loader's thread,
/// handing the model back to this one.
model_loader::model_ptr load_on_thread(model_loader& loader, model_loader::model_ptr model) {
  std::promise<model_loader::model_ptr> made;
  auto back = made.get_future();
  loader.load_on_thread([&made, m = std::move(model)]() mutable { made.set_value(std::move(m)); });
  auto result = back.get();
  loader.loaded();
  return result;
}

TEST(model_loader, finalizes_a_blocking_model_loaded_on_a_thread_on_another_and_says_when) {
  std::promise<std::thread::id> finalized_on;
  auto finalized = finalized_on.get_future();
  model_loader loader{"model 'm' version 1"};
  auto model = load_on_thread(loader, std::make_shared<finalized_model>(true, finalized_on));
  std::promise<void> done;
  auto done_future = done.get_future();
  EXPECT_TRUE(loader.finalize(model, [&done] { done.set_value(); }));
  EXPECT_EQ(model, nullptr);
  ASSERT_EQ(done_future.wait_for(10s), std::future_status::ready);
  EXPECT_NE(finalized.get(), std::this_thread::get_id());
  // Asked again before the scheduler heard back, it still waits.
  model_loader::model_ptr none;
  EXPECT_TRUE(loader.finalize(none, [] {}));
  loader.finalized();
  EXPECT_FALSE(loader.finalize(none, [] {}));
}

TEST(model_loader, releases_a_model_that_does_not_block_where_it_is) {
  std::promise<std::thread::id> finalized_on;
  auto finalized = finalized_on.get_future();
  model_loader loader{"model 'm' version 1"};
  auto model = load_on_thread(loader, std::make_shared<finalized_model>(false, finalized_on));
  EXPECT_FALSE(loader.finalize(model, [] { ADD_FAILURE() << "nothing to wait for"; }));
  EXPECT_EQ(model, nullptr);
  EXPECT_EQ(finalized.get(), std::this_thread::get_id());
}

TEST(model_loader, releases_a_blocking_model_loaded_here_where_it_is) {
  std::promise<std::thread::id> finalized_on;
  auto finalized = finalized_on.get_future();
  model_loader loader{"model 'm' version 1"};
  model_loader::model_ptr model = std::make_shared<finalized_model>(true, finalized_on);
  EXPECT_FALSE(loader.finalize(model, [] { ADD_FAILURE() << "nothing to wait for"; }));
  EXPECT_EQ(finalized.get(), std::this_thread::get_id());
}

TEST(model_loader, release_finalizes_a_blocking_model_on_a_thread_without_waiting) {
  std::promise<std::thread::id> finalized_on;
  auto finalized = finalized_on.get_future();
  model_loader loader{"model 'm' version 1"};
  auto model = load_on_thread(loader, std::make_shared<finalized_model>(true, finalized_on));
  loader.release(model);
  EXPECT_EQ(model, nullptr);
  ASSERT_EQ(finalized.wait_for(10s), std::future_status::ready);
  EXPECT_NE(finalized.get(), std::this_thread::get_id());
}

TEST(model_loader, release_gives_up_on_a_load_that_has_not_returned) {
  std::promise<void> started;
  std::promise<void> go_on;
  auto go = go_on.get_future().share();
  model_loader loader{"model 'm' version 1"};
  loader.load_on_thread([&started, go] {
    started.set_value();
    go.wait();
  });
  started.get_future().wait();
  model_loader::model_ptr none;
  loader.release(none); // returns although the load still runs
  go_on.set_value();
}

} // namespace
} // namespace conch::actors
