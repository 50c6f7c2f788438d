// The response cache: a model with `response_cache { enable: true }` on a
// server with a cache answers a repeated request from it, without running.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/model_configs.hpp"
#include "support/server_fixture.hpp"
#include "support/temp_repository.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

using runtime::data_type;

class response_cache : public server_fixture {
 protected:
  void SetUp() override {
    repo_.add_model("cached", identity_config("cached", 8, "response_cache { enable: true }\n", 4));
    repo_.add_model("uncached", identity_config("uncached", 8, "", 4));
  }

  actors::server start_with_cache(uint64_t bytes) {
    auto o = options_for(repo_.str());
    o.response_cache_byte_size = bytes;
    auto s = start(o);
    EXPECT_TRUE(s) << s.error().to_string();
    return *s;
  }

  static runtime::inference_response infer(actors::server& srv, const std::string& model,
                                           std::vector<float> values) {
    return infer_sync(srv, make_request(model, "c", {make_tensor("INPUT0", data_type::fp32,
                                                                 {1, 4}, values)}));
  }

  static runtime::statistics::statistics_snapshot stats(actors::server& srv,
                                                        const std::string& model) {
    auto s = srv.model_statistics(model);
    EXPECT_TRUE(s && s->size() == 1);
    return s && !s->empty() ? (*s)[0] : runtime::statistics::statistics_snapshot{};
  }

  temp_repository repo_;
};

TEST_F(response_cache, a_repeated_request_is_answered_from_the_cache) {
  auto srv = start_with_cache(1 << 20);
  auto first = infer(srv, "cached", {1, 2, 3, 4});
  ASSERT_TRUE(first.error) << first.error.to_string();
  auto again = infer(srv, "cached", {1, 2, 3, 4});
  ASSERT_TRUE(again.error) << again.error.to_string();
  EXPECT_EQ(again.id, "c");
  ASSERT_EQ(again.outputs.size(), 1u);
  EXPECT_EQ(again.outputs[0].name, "OUTPUT0");
  EXPECT_EQ(again.outputs[0].shape, (runtime::shape_type{1, 4}));
  EXPECT_EQ(values_of<float>(again.outputs[0]), (std::vector<float>{1, 2, 3, 4}));
  auto other = infer(srv, "cached", {5, 6, 7, 8});
  EXPECT_EQ(values_of<float>(other.outputs.at(0)), (std::vector<float>{5, 6, 7, 8}));

  auto s = stats(srv, "cached");
  EXPECT_EQ(s.execution_count, 2u); // the hit did not run
  EXPECT_EQ(s.inference_count, 2u);
  EXPECT_EQ(s.cache_hit.count, 1u);
  EXPECT_EQ(s.cache_miss.count, 2u);
  EXPECT_EQ(s.success.count, 3u);
  EXPECT_EQ(s.queue.count, 3u);
  EXPECT_EQ(s.compute_infer.count, 2u);
  auto text = srv.metrics_text();
  EXPECT_NE(text.find("nv_cache_num_hits_per_model{model=\"cached\",version=\"1\"} 1"),
            std::string::npos)
    << text;
  EXPECT_NE(text.find("nv_cache_num_misses_per_model{model=\"cached\",version=\"1\"} 2"),
            std::string::npos);
  EXPECT_NE(text.find("nv_cache_hit_duration_per_model{model=\"cached\""), std::string::npos);
  EXPECT_EQ(text.find("nv_cache_num_hits_per_model{model=\"uncached\""), std::string::npos);
}

TEST_F(response_cache, only_models_that_enable_it_and_servers_that_have_one_cache) {
  auto with = start_with_cache(1 << 20);
  infer(with, "uncached", {1, 1, 1, 1});
  infer(with, "uncached", {1, 1, 1, 1});
  EXPECT_EQ(stats(with, "uncached").execution_count, 2u);
  EXPECT_EQ(stats(with, "uncached").cache_miss.count, 0u);

  auto without = start_with_cache(0);
  infer(without, "cached", {1, 1, 1, 1});
  infer(without, "cached", {1, 1, 1, 1});
  EXPECT_EQ(stats(without, "cached").execution_count, 2u);
  EXPECT_EQ(stats(without, "cached").cache_hit.count, 0u);
}

TEST_F(response_cache, a_full_cache_evicts_and_keeps_answering) {
  // Room for about one response of 16 bytes.
  auto srv = start_with_cache(200);
  infer(srv, "cached", {1, 1, 1, 1});
  infer(srv, "cached", {2, 2, 2, 2}); // evicts the first
  auto r = infer(srv, "cached", {1, 1, 1, 1});
  EXPECT_EQ(values_of<float>(r.outputs.at(0)), (std::vector<float>{1, 1, 1, 1}));
  auto s = stats(srv, "cached");
  EXPECT_EQ(s.cache_hit.count, 0u);
  EXPECT_EQ(s.execution_count, 3u);
}

} // namespace
} // namespace conch::tests
