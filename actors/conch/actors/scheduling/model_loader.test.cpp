#include "conch/actors/scheduling/model_loader.hpp"

#include <chrono>
#include <future>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "conch/runtime/statistics/abandoned_threads.hpp"
#include "conch/runtime/status.hpp"

namespace conch::actors {
namespace {

using namespace std::chrono_literals;
namespace backends = runtime::backends;
using runtime::statistics::abandoned_threads;

/// Where a thread a test starts reports back. Shared with that thread, so a
/// test that fails early never leaves it writing to a promise that is gone.
template <class T>
struct report {
  std::promise<T> promise;
  std::future<T> future = promise.get_future();
};

template <class T>
using report_ptr = std::shared_ptr<report<T>>;

/// A model that reports the thread it is destroyed on.
class finalized_model : public backends::backend_model {
 public:
  finalized_model(bool blocking, report_ptr<std::thread::id> finalized_on)
    : blocking_(blocking), finalized_on_(std::move(finalized_on)) {}
  ~finalized_model() override { finalized_on_->promise.set_value(std::this_thread::get_id()); }

  runtime::result<std::unique_ptr<backends::backend_instance>>
  create_instance(const backends::instance_context&) override {
    return runtime::internal_error("no instances");
  }
  bool blocking() const noexcept override { return blocking_; }

 private:
  bool blocking_;
  report_ptr<std::thread::id> finalized_on_;
};

/// Loads `model` the way the scheduler does: on the loader's thread, handing
/// the model back to this one. Null when the load did not return in time.
model_loader::model_ptr load_on_thread(model_loader& loader, model_loader::model_ptr model) {
  auto made = std::make_shared<report<model_loader::model_ptr>>();
  loader.load_on_thread([made, m = std::move(model)]() mutable {
    made->promise.set_value(std::move(m));
  });
  if (made->future.wait_for(10s) != std::future_status::ready)
    return nullptr;
  loader.loaded();
  return made->future.get();
}

TEST(model_loader, finalizes_a_blocking_model_loaded_on_a_thread_on_another_and_says_when) {
  auto finalized_on = std::make_shared<report<std::thread::id>>();
  model_loader loader{"model 'm' version 1"};
  auto model = load_on_thread(loader, std::make_shared<finalized_model>(true, finalized_on));
  ASSERT_NE(model, nullptr);
  auto done = std::make_shared<report<void>>();
  EXPECT_TRUE(loader.finalize(model, [done] { done->promise.set_value(); }));
  EXPECT_EQ(model, nullptr);
  ASSERT_EQ(done->future.wait_for(10s), std::future_status::ready);
  ASSERT_EQ(finalized_on->future.wait_for(10s), std::future_status::ready);
  EXPECT_NE(finalized_on->future.get(), std::this_thread::get_id());
  // Asked again before the scheduler heard back, it still waits.
  model_loader::model_ptr none;
  EXPECT_TRUE(loader.finalize(none, [] {}));
  loader.finalized();
  EXPECT_FALSE(loader.finalize(none, [] {}));
}

TEST(model_loader, releases_a_model_that_does_not_block_where_it_is) {
  auto finalized_on = std::make_shared<report<std::thread::id>>();
  model_loader loader{"model 'm' version 1"};
  auto model = load_on_thread(loader, std::make_shared<finalized_model>(false, finalized_on));
  ASSERT_NE(model, nullptr);
  EXPECT_FALSE(loader.finalize(model, [] { ADD_FAILURE() << "nothing to wait for"; }));
  EXPECT_EQ(model, nullptr);
  ASSERT_EQ(finalized_on->future.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(finalized_on->future.get(), std::this_thread::get_id());
}

TEST(model_loader, releases_a_blocking_model_loaded_here_where_it_is) {
  auto finalized_on = std::make_shared<report<std::thread::id>>();
  model_loader loader{"model 'm' version 1"};
  model_loader::model_ptr model = std::make_shared<finalized_model>(true, finalized_on);
  EXPECT_FALSE(loader.finalize(model, [] { ADD_FAILURE() << "nothing to wait for"; }));
  EXPECT_EQ(model, nullptr);
  ASSERT_EQ(finalized_on->future.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(finalized_on->future.get(), std::this_thread::get_id());
}

TEST(model_loader, release_finalizes_a_blocking_model_on_a_thread_without_waiting) {
  auto finalized_on = std::make_shared<report<std::thread::id>>();
  model_loader loader{"model 'm' version 1"};
  auto model = load_on_thread(loader, std::make_shared<finalized_model>(true, finalized_on));
  ASSERT_NE(model, nullptr);
  loader.release(model);
  EXPECT_EQ(model, nullptr);
  ASSERT_EQ(finalized_on->future.wait_for(10s), std::future_status::ready);
  EXPECT_NE(finalized_on->future.get(), std::this_thread::get_id());
}

TEST(model_loader, release_gives_up_on_a_load_that_has_not_returned) {
  auto started = std::make_shared<report<void>>();
  auto go_on = std::make_shared<report<void>>();
  auto abandoned_before = abandoned_threads::total();
  auto running_before = abandoned_threads::running();
  {
    model_loader loader{"model 'm' version 1"};
    loader.load_on_thread([started, go_on] {
      started->promise.set_value();
      go_on->future.wait();
    });
    ASSERT_EQ(started->future.wait_for(10s), std::future_status::ready);
    model_loader::model_ptr none;
    loader.release(none); // returns although the load still runs
  }
  EXPECT_EQ(abandoned_threads::total(), abandoned_before + 1);
  EXPECT_EQ(abandoned_threads::running(), running_before + 1);
  // Let the abandoned load return, and its thread end, before the next test.
  go_on->promise.set_value();
  for (int i = 0; i < 1000 && abandoned_threads::running() != running_before; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(abandoned_threads::running(), running_before);
}

} // namespace
} // namespace conch::actors
