#include "conch/runtime/response_cache.hpp"

#include <gtest/gtest.h>

using namespace conch::runtime;

namespace {

tensor fp32(const std::string& name, std::vector<float> v) {
  return tensor{name, data_type::fp32, {static_cast<int64_t>(v.size())},
                buffer::copy_of(v.data(), v.size() * sizeof(float))};
}

inference_request request_of(std::vector<tensor> inputs) {
  inference_request r;
  r.inputs = std::move(inputs);
  return r;
}

} // namespace

TEST(response_cache, keys_follow_what_the_request_asks) {
  auto a = request_of({fp32("X", {1, 2}), fp32("Y", {3})});
  auto same_reordered = request_of({fp32("Y", {3}), fp32("X", {1, 2})});
  EXPECT_EQ(response_cache::key_of(a, "m", 1), response_cache::key_of(same_reordered, "m", 1));
  EXPECT_FALSE(response_cache::key_of(a, "m", 1) == response_cache::key_of(a, "m", 2));
  EXPECT_FALSE(response_cache::key_of(a, "m", 1) == response_cache::key_of(a, "n", 1));
  auto other_bytes = request_of({fp32("X", {1, 5}), fp32("Y", {3})});
  EXPECT_FALSE(response_cache::key_of(a, "m", 1) == response_cache::key_of(other_bytes, "m", 1));
  auto reshaped = a;
  reshaped.inputs[0].shape = {1, 2};
  EXPECT_FALSE(response_cache::key_of(a, "m", 1) == response_cache::key_of(reshaped, "m", 1));
  auto fewer_outputs = a;
  fewer_outputs.requested_outputs = {"OUT"};
  EXPECT_FALSE(response_cache::key_of(a, "m", 1)
               == response_cache::key_of(fewer_outputs, "m", 1));
}

TEST(response_cache, keys_cover_parameters_and_are_not_a_public_hash) {
  auto a = request_of({fp32("X", {1, 2})});
  auto with_param = a;
  with_param.parameters.push_back(parameter{"temperature", 0.5});
  EXPECT_FALSE(response_cache::key_of(a, "m", 1) == response_cache::key_of(with_param, "m", 1));
  auto other_value = a;
  other_value.parameters.push_back(parameter{"temperature", 0.7});
  EXPECT_FALSE(response_cache::key_of(with_param, "m", 1)
               == response_cache::key_of(other_value, "m", 1));
  auto other_type = a;
  other_type.parameters.push_back(parameter{"temperature", std::string{"0.5"}});
  EXPECT_FALSE(response_cache::key_of(with_param, "m", 1)
               == response_cache::key_of(other_type, "m", 1));
  auto two = a, two_reordered = a;
  two.parameters = {parameter{"p", int64_t{1}}, parameter{"q", true}};
  two_reordered.parameters = {parameter{"q", true}, parameter{"p", int64_t{1}}};
  EXPECT_EQ(response_cache::key_of(two, "m", 1), response_cache::key_of(two_reordered, "m", 1));

  // FNV-1a, the hash keys used to be, with its published offset basis: the
  // key of the empty model name must not be it (the hash is keyed now), and
  // inputs whose bytes cross word boundaries in different splits still meet.
  auto key = response_cache::key_of(request_of({}), "", 0);
  EXPECT_NE(key.high, 14695981039346656037ULL);
  auto split_one = request_of({tensor{"X", data_type::uint8, {3}, buffer::copy_of("abc", 3)}});
  auto split_two = request_of({tensor{"X", data_type::uint8, {3}, buffer::copy_of("abd", 3)}});
  EXPECT_FALSE(response_cache::key_of(split_one, "model-of-eleven", 1)
               == response_cache::key_of(split_two, "model-of-eleven", 1));
  EXPECT_EQ(response_cache::key_of(split_one, "model-of-eleven", 1),
            response_cache::key_of(split_one, "model-of-eleven", 1));
}

TEST(response_cache, requests_in_client_memory_are_not_cacheable) {
  auto a = request_of({fp32("X", {1, 2})});
  EXPECT_TRUE(response_cache::cacheable(a));
  // The client can rewrite its shared memory after the key is made: the
  // answer would be stored under bytes the model never saw.
  a.memory_of_client = client_memory::shared;
  EXPECT_FALSE(response_cache::cacheable(a));
}

TEST(response_cache, stores_copies_and_evicts_the_least_recently_used) {
  auto entry = [](float v) { return std::vector<tensor>{fp32("OUT", std::vector<float>(16, v))}; };
  // Room for two entries of 64 data bytes and their overhead, not three.
  response_cache cache{2 * (64 + 3 + sizeof(tensor)) + 10};
  cache_key k1{1, 1}, k2{2, 2}, k3{3, 3};
  auto original = entry(1);
  ASSERT_TRUE(cache.insert(k1, original));
  // The cache holds a copy: a client buffer changing later changes nothing.
  reinterpret_cast<float*>(original[0].data.data())[0] = 99;
  ASSERT_TRUE(cache.insert(k2, entry(2)));
  ASSERT_TRUE(cache.lookup(k1)); // k1 is now the most recent
  ASSERT_TRUE(cache.insert(k3, entry(3)));
  EXPECT_EQ(cache.entries(), 2u);
  EXPECT_FALSE(cache.lookup(k2));
  auto hit = cache.lookup(k1);
  ASSERT_TRUE(hit);
  EXPECT_EQ(reinterpret_cast<const float*>(hit->at(0).data.data())[0], 1.0f);
  EXPECT_LE(cache.size_bytes(), cache.capacity_bytes());
  // Larger than the whole cache: not stored, nothing evicted.
  EXPECT_FALSE(cache.insert(cache_key{4, 4}, {fp32("OUT", std::vector<float>(1000, 0))}));
  EXPECT_EQ(cache.entries(), 2u);
}

TEST(response_cache, the_tap_stores_final_successes_only) {
  auto cache = std::make_shared<response_cache>(1 << 20);
  cache_insert_tap tap{cache, cache_key{7, 7}};
  inference_response partial;
  partial.outputs = {fp32("OUT", {1})};
  tap.on_response(partial);
  inference_response failed;
  failed.final = true;
  failed.error = internal_error("no");
  tap.on_response(failed);
  EXPECT_EQ(cache->entries(), 0u);
  inference_response done;
  done.final = true;
  done.outputs = {fp32("OUT", {1})};
  tap.on_response(done);
  EXPECT_EQ(cache->entries(), 1u);
}
