// The non-blocking repository operations of conch::server.

#include <chrono>
#include <cstdlib>
#include <future>
#include <thread>

#include <caf/event_based_actor.hpp>
#include <gtest/gtest.h>

#include "conch/actors/server.hpp"
#include "conch/actors/server_host.hpp"

using namespace conch::runtime;

namespace conch::actors {
namespace {

constexpr auto deadline = std::chrono::seconds{30};

server_options example_options() {
  const char* root = std::getenv("CONCH_SOURCE_DIR");
  server_options options;
  options.model_repository = {std::string{root ? root : "."}
                              + "/python/examples/example_model_repository"};
  options.model_control_mode = control_mode::explicit_;
  options.startup_models = {"identity_fp32", "simple"};
  options.gpu_count = 0;
  return options;
}

// What a callback received, and the thread it ran on.
template <class T>
struct outcome {
  T value;
  std::thread::id thread;
};

template <class T>
std::function<void(T)> fulfil(std::promise<outcome<T>>& p) {
  return [&p](T value) { p.set_value({std::move(value), std::this_thread::get_id()}); };
}

template <class T>
std::optional<outcome<T>> wait(std::promise<outcome<T>>& p) {
  auto f = p.get_future();
  if (f.wait_for(deadline) != std::future_status::ready)
    return std::nullopt;
  return f.get();
}

using index_result = result<std::vector<index_entry>>;

const index_entry* find(const std::vector<index_entry>& index, const std::string& name) {
  for (const auto& e : index)
    if (e.name == name)
      return &e;
  return nullptr;
}

class server_async : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host = server_host::start(example_options());
    ASSERT_TRUE(host) << host.error().to_string();
    host_ = std::move(*host);
  }

  server& srv() { return host_->server(); }

  std::unique_ptr<server_host> host_;
};

TEST_F(server_async, index_answers_on_a_thread_of_the_actor_system) {
  std::promise<outcome<index_result>> p;
  srv().repository_index_async(false, fulfil(p));
  auto got = wait(p);
  ASSERT_TRUE(got) << "no answer";
  ASSERT_TRUE(got->value) << got->value.error().to_string();
  EXPECT_NE(got->thread, std::this_thread::get_id());
  const auto* e = find(*got->value, "identity_fp32");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->version, "1");
  EXPECT_EQ(e->state, model_state::ready);
  // Found in the repository but never loaded: listed by name only.
  const auto* never = find(*got->value, "repeat_int32");
  ASSERT_NE(never, nullptr);
  EXPECT_TRUE(never->version.empty());
}

TEST_F(server_async, index_of_ready_models_only) {
  std::promise<outcome<index_result>> p;
  srv().repository_index_async(true, fulfil(p));
  auto got = wait(p);
  ASSERT_TRUE(got && got->value);
  EXPECT_EQ(find(*got->value, "repeat_int32"), nullptr);
  EXPECT_NE(find(*got->value, "simple"), nullptr);
}

TEST_F(server_async, unload_then_load_again) {
  std::promise<outcome<status>> unloaded;
  srv().unload_async("simple", false, fulfil(unloaded));
  auto u = wait(unloaded);
  ASSERT_TRUE(u);
  EXPECT_TRUE(u->value) << u->value.to_string();
  EXPECT_FALSE(srv().model_ready("simple"));
  std::promise<outcome<status>> loaded;
  srv().load_async("simple", {}, fulfil(loaded));
  auto l = wait(loaded);
  ASSERT_TRUE(l);
  EXPECT_TRUE(l->value) << l->value.to_string();
  EXPECT_TRUE(srv().model_ready("simple"));
}

TEST_F(server_async, load_failures_arrive_as_statuses) {
  std::promise<outcome<status>> p;
  srv().load_async("no_such_model", {}, fulfil(p));
  auto got = wait(p);
  ASSERT_TRUE(got);
  EXPECT_FALSE(got->value);
  std::promise<outcome<status>> files_only;
  load_parameters params;
  params.files = {{"file:1/model.bin", "x"}};
  srv().load_async("identity_fp32", params, fulfil(files_only));
  auto f = wait(files_only);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->value.code(), errc::invalid_argument) << f->value.to_string();
}

// From the only scheduler thread: a blocking call would never get its answer.
TEST(server_async_threads, works_from_inside_an_actor_on_a_single_scheduler_thread) {
  host_options host;
  host.scheduler_threads = 1;
  auto h = server_host::start(example_options(), host);
  ASSERT_TRUE(h) << h.error().to_string();
  auto srv = (*h)->server();
  std::promise<outcome<status>> p;
  (*h)->system().spawn([srv, &p](caf::event_based_actor*) mutable {
    srv.unload_async("simple", false, fulfil(p));
  });
  auto got = wait(p);
  ASSERT_TRUE(got) << "no answer: the scheduler thread was blocked";
  EXPECT_TRUE(got->value) << got->value.to_string();
}

TEST_F(server_async, after_stop_every_callback_gets_unavailable) {
  auto srv_copy = srv();
  ASSERT_TRUE(srv_copy.stop());
  std::promise<outcome<index_result>> index;
  srv_copy.repository_index_async(false, fulfil(index));
  std::promise<outcome<status>> load;
  srv_copy.load_async("simple", {}, fulfil(load));
  std::promise<outcome<status>> unload;
  srv_copy.unload_async("simple", false, fulfil(unload));
  auto i = wait(index);
  auto l = wait(load);
  auto u = wait(unload);
  ASSERT_TRUE(i && l && u);
  EXPECT_EQ(i->value.error().code(), errc::unavailable);
  EXPECT_EQ(l->value.code(), errc::unavailable);
  EXPECT_EQ(u->value.code(), errc::unavailable);
}

} // namespace
} // namespace conch::actors
