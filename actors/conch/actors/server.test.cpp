#include "conch/actors/server.hpp"

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <gtest/gtest.h>

#include "conch/actors/server_host.hpp"

using namespace conch::runtime;

namespace conch::actors {
namespace {

// The C++ models of the example repository (its others need the Python
// backends).
server_options example_options() {
  const char* root = std::getenv("CONCH_SOURCE_DIR");
  server_options options;
  options.model_repository = {std::string{root ? root : "."}
                              + "/python/examples/example_model_repository"};
  options.model_control_mode = control_mode::explicit_;
  options.startup_models = {"identity_fp32", "repeat_int32", "simple"};
  return options;
}

TEST(server, serves_the_example_repository_and_stops) {
  auto options = example_options();
  auto host = server_host::start(options);
  ASSERT_TRUE(host) << host.error().to_string();
  auto& srv = (*host)->server();
  EXPECT_TRUE(srv.live());
  EXPECT_TRUE(srv.ready());
  EXPECT_TRUE(srv.model_ready("simple"));
  std::mutex mu;
  std::condition_variable cv;
  std::vector<inference_response> got;
  inference_request r;
  r.model_name = "identity_fp32";
  std::vector<float> v(16, 2.5f);
  r.inputs.push_back({"INPUT0", data_type::fp32, {1, 16}, buffer::copy_of(v.data(), 64)});
  srv.submit(std::move(r), [&](inference_response&& resp) {
    std::lock_guard<std::mutex> g{mu};
    got.push_back(std::move(resp));
    cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock{mu};
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return !got.empty(); }));
  }
  ASSERT_TRUE(got[0].error.is_ok()) << got[0].error.to_string();
  ASSERT_EQ(got[0].outputs.size(), 1u);
  EXPECT_EQ(std::memcmp(got[0].outputs[0].data.data(), v.data(), 64), 0);
  EXPECT_TRUE(srv.stop());
  EXPECT_FALSE(srv.ready());
  EXPECT_TRUE(srv.stop()); // idempotent: the same outcome again
}

TEST(server, a_request_handle_kept_past_stop_does_not_hold_the_actor_system) {
  auto options = example_options();
  request_handle kept;
  {
    auto host = server_host::start(options);
    ASSERT_TRUE(host) << host.error().to_string();
    auto& srv = (*host)->server();
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    inference_request r;
    r.model_name = "identity_fp32";
    std::vector<float> v(16, 1.0f);
    r.inputs.push_back({"INPUT0", data_type::fp32, {1, 16}, buffer::copy_of(v.data(), 64)});
    kept = srv.submit(std::move(r), [&](inference_response&&) {
      std::lock_guard<std::mutex> g{mu};
      done = true;
      cv.notify_all();
    });
    std::unique_lock<std::mutex> lock{mu};
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return done; }));
    lock.unlock();
    EXPECT_TRUE(srv.stop());
    // Leaving the scope destroys the actor system while `kept` still holds the
    // job (and through it the in-process frontend): it must not wait for ever.
  }
  EXPECT_TRUE(kept.completed());
}

} // namespace
} // namespace conch::actors
