// The SageMaker multi-model routes end to end, through the HTTP frontend:
// loads and unloads of one model racing with invocations of another, then
// a stop with all of it in flight. Each request gets its answer (or a clean
// close once stopping), and the server's repositories end as they began.

#include <atomic>
#include <future>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/http_fixture.hpp"

namespace conch::tests {
namespace {

constexpr const char* identity = R"(
  backend: "identity"
  max_batch_size: 0
  input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ -1 ] } ]
  output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ -1 ] } ]
)";

const std::string infer_body =
  R"({"inputs":[{"name":"INPUT0","shape":[2],"datatype":"FP32","data":[1,2]}]})";

class http_sagemaker : public http_fixture {
 protected:
  void SetUp() override {
    folders_.add_model("a/model", identity, {1});
    folders_.add_model("b/model", identity, {1});
    auto http = test_http_options();
    http.sagemaker = true;
    start_all(example_options(), http);
  }

  std::string load_body(const std::string& name, const std::string& id) {
    return R"({"model_name":")" + name + R"(","url":")" + (folders_.path() / id / "model").string()
           + R"("})";
  }

  temp_repository folders_;
};

TEST_F(http_sagemaker, loads_and_unloads_race_with_invocations_and_a_stop) {
  auto r = call("POST", "/models", load_body("steady", "a"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;

  std::atomic<bool> done{false};
  std::atomic<int> invoked{0};
  auto invoker = std::async(std::launch::async, [&] {
    while (!done) {
      auto r = call("POST", "/models/steady/invoke", infer_body);
      if (!r)
        return;  // stopped
      EXPECT_TRUE(r->status == 200 || r->status == 503) << r->status << " " << r->body;
      ++invoked;
    }
  });
  for (int i = 0; i < 5; ++i) {
    auto load = call("POST", "/models", load_body("cycled", "b"));
    ASSERT_TRUE(load);
    ASSERT_EQ(load->status, 200) << load->body;
    auto run = call("POST", "/models/cycled/invoke", infer_body);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->status, 200) << run->body;
    auto unload = call("DELETE", "/models/cycled");
    ASSERT_TRUE(unload);
    ASSERT_EQ(unload->status, 200) << unload->body;
  }
  ASSERT_TRUE(eventually([&] { return invoked >= 10; }));
  auto list = call("GET", "/models");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->body, R"({"models":[{"modelName":"steady","modelUrl":")"
                          + (folders_.path() / "a").string() + R"("}]})");

  // A load in flight when the server stops is answered, or its connection closed.
  auto pending = std::async(std::launch::async,
                            [&] { return call("POST", "/models", load_body("late", "b")); });
  ASSERT_TRUE(srv_->stop());
  done = true;
  ASSERT_EQ(invoker.wait_for(std::chrono::seconds{60}), std::future_status::ready);
  ASSERT_EQ(pending.wait_for(std::chrono::seconds{60}), std::future_status::ready);
  auto late = pending.get();
  if (late) {
    EXPECT_TRUE(late->status == 200 || late->status >= 400) << late->status;
  }
}

} // namespace
} // namespace conch::tests
