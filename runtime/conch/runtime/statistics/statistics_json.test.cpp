#include "conch/runtime/statistics/statistics_json.hpp"

#include <cstdint>
#include <limits>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "conch/runtime/statistics/model_statistics.hpp"

using namespace conch::runtime;
using namespace conch::runtime::statistics;

namespace {

// Fails the test for every number in `v` that is not an unsigned integer.
void expect_unsigned_numbers(const rapidjson::Value& v, const std::string& path) {
  if (v.IsNumber()) {
    EXPECT_TRUE(v.IsUint64()) << path;
  } else if (v.IsObject()) {
    for (const auto& m : v.GetObject())
      expect_unsigned_numbers(m.value, path + "." + m.name.GetString());
  } else if (v.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i)
      expect_unsigned_numbers(v[i], path + "[" + std::to_string(i) + "]");
  }
}

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

statistics_snapshot decoupled_snapshot() {
  statistics_snapshot s;
  s.name = "llm";
  s.version = 3;
  s.last_inference = 1'700'000'000'000;
  s.inference_count = 6;
  s.execution_count = 2;
  s.success = {4, std::numeric_limits<uint64_t>::max()};
  s.queue = {4, 400};
  s.batch_stats.push_back({2, {1, 10}, {1, 20}, {1, 30}});
  s.batch_stats.push_back({4, {1, 11}, {1, 21}, {1, 31}});
  s.response_stats[0].success = {4, 80};
  s.response_stats[12].empty_response = {1, 5};
  return s;
}

} // namespace

TEST(statistics_json, an_empty_list_is_an_empty_model_stats_array) {
  EXPECT_EQ(statistics_json({}), "{\"model_stats\":[]}");
}

TEST(statistics_json, every_field_has_the_protocol_shape) {
  auto doc = parse(statistics_json({decoupled_snapshot()}));
  ASSERT_TRUE(doc["model_stats"].IsArray());
  ASSERT_EQ(doc["model_stats"].Size(), 1u);
  const auto& m = doc["model_stats"][0];
  EXPECT_STREQ(m["name"].GetString(), "llm");
  ASSERT_TRUE(m["version"].IsString());
  EXPECT_STREQ(m["version"].GetString(), "3");
  EXPECT_EQ(m["last_inference"].GetUint64(), 1'700'000'000'000u);
  EXPECT_EQ(m["inference_count"].GetUint64(), 6u);
  EXPECT_EQ(m["execution_count"].GetUint64(), 2u);
  const auto& is = m["inference_stats"];
  for (const char* key : {"success", "fail", "queue", "compute_input", "compute_infer",
                          "compute_output", "cache_hit", "cache_miss"}) {
    ASSERT_TRUE(is.HasMember(key)) << key;
    EXPECT_TRUE(is[key]["count"].IsUint64()) << key;
    EXPECT_TRUE(is[key]["ns"].IsUint64()) << key;
  }
  EXPECT_EQ(is["success"]["ns"].GetUint64(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(is["queue"]["count"].GetUint64(), 4u);
  ASSERT_TRUE(m["response_stats"].IsObject());
  EXPECT_EQ(m["response_stats"]["0"]["success"]["count"].GetUint64(), 4u);
  EXPECT_EQ(m["response_stats"]["12"]["empty_response"]["ns"].GetUint64(), 5u);
  EXPECT_TRUE(m["response_stats"]["12"].HasMember("cancel"));
  ASSERT_TRUE(m["batch_stats"].IsArray());
  ASSERT_EQ(m["batch_stats"].Size(), 2u);
  EXPECT_EQ(m["batch_stats"][1]["batch_size"].GetUint64(), 4u);
  EXPECT_EQ(m["batch_stats"][1]["compute_output"]["ns"].GetUint64(), 31u);
  ASSERT_TRUE(m["memory_usage"].IsArray());
  EXPECT_EQ(m["memory_usage"].Size(), 0u);
  expect_unsigned_numbers(doc, "$");
}

TEST(statistics_json, a_live_record_serializes_with_an_empty_response_stats_object) {
  auto stats = std::make_shared<model_statistics>("m", 1, false, 4, nullptr);
  stats->record_execution(2, 1, 2, 3, 4);
  auto doc = parse(statistics_json({stats->snapshot(), decoupled_snapshot()}));
  ASSERT_EQ(doc["model_stats"].Size(), 2u);
  const auto& m = doc["model_stats"][0];
  EXPECT_STREQ(m["version"].GetString(), "1");
  ASSERT_TRUE(m["response_stats"].IsObject());
  EXPECT_EQ(m["response_stats"].MemberCount(), 0u);
  EXPECT_EQ(m["batch_stats"][0]["batch_size"].GetUint64(), 2u);
  EXPECT_EQ(m["inference_count"].GetUint64(), 2u);
  expect_unsigned_numbers(doc, "$");
}
