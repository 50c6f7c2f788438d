#include "conch/runtime/tracing/trace_settings.hpp"

#include <map>

#include <gtest/gtest.h>

namespace conch::runtime::tracing {
namespace {

// A body as tritonclient sends it: each key's strings, or nullopt for null.
trace_lookup from(std::map<std::string, trace_value> values) {
  return [values = std::move(values)](std::string_view key)
           -> result<std::optional<trace_value>> {
    auto i = values.find(std::string{key});
    if (i == values.end())
      return std::optional<trace_value>{};
    return std::optional<trace_value>{i->second};
  };
}

std::vector<std::string> one(std::string v) { return {std::move(v)}; }

trace_settings started() {
  trace_settings s;
  s.level = trace_timestamps;
  s.rate = 1;
  s.file = "global.log";
  return s;
}

TEST(trace_settings, reads_levels_numbers_and_clears) {
  auto u = parse_trace_update(from({{"trace_level", std::vector<std::string>{"TIMESTAMPS",
                                                                             "TENSORS"}},
                                    {"trace_rate", one("12")},
                                    {"trace_count", std::nullopt},
                                    {"log_frequency", one("34")},
                                    {"trace_mode", one("opentelemetry")},
                                    {"unknown", one("x")}}));
  ASSERT_TRUE(u) << u.error().to_string();
  EXPECT_EQ(u->level.value, trace_timestamps | trace_tensors);
  EXPECT_EQ(u->rate.value, 12u);
  EXPECT_TRUE(u->count.present);
  EXPECT_FALSE(u->count.value);
  EXPECT_EQ(u->log_frequency.value, 34u);
}

TEST(trace_settings, refuses_the_trace_file_even_as_null) {
  for (auto value : {trace_value{one("x.log")}, trace_value{}}) {
    auto u = parse_trace_update(from({{"trace_file", value}, {"trace_rate", one("1")}}));
    ASSERT_FALSE(u);
    EXPECT_EQ(u.error().code(), errc::unsupported);
    EXPECT_EQ(u.error().message(),
              "trace file location can not be updated through network protocol");
  }
}

TEST(trace_settings, level_off_must_be_alone_and_unknown_names_are_ignored) {
  auto u = parse_trace_update(from({{"trace_level", std::vector<std::string>{"OFF", "TENSORS"}}}));
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().message(), "Expect only one trace level 'OFF' is specified");
  u = parse_trace_update(from({{"trace_level", std::vector<std::string>{"FOO"}}}));
  ASSERT_TRUE(u);
  EXPECT_FALSE(u->level.present);
  u = parse_trace_update(from({{"trace_level", std::vector<std::string>{}}}));
  ASSERT_TRUE(u);
  EXPECT_FALSE(u->level.present);
  u = parse_trace_update(from({{"trace_level", std::vector<std::string>{"OFF"}}}));
  ASSERT_TRUE(u);
  EXPECT_EQ(u->level.value, 0u);
}

TEST(trace_settings, numbers_use_tritons_messages) {
  auto message = [](const char* key, const char* value) {
    auto u = parse_trace_update(from({{key, one(value)}}));
    EXPECT_FALSE(u) << key << "=" << value;
    return u ? std::string{} : u.error().message();
  };
  EXPECT_EQ(message("trace_rate", "abc"), "Unable to parse 'trace_rate', got: abc");
  EXPECT_EQ(message("trace_rate", "10000000000"),
            "Unable to parse 'trace_rate', value is out of range [ 0, 4294967295 ], got: "
            "10000000000");
  EXPECT_EQ(message("log_frequency", "-1"),
            "Unable to parse 'log_frequency', value is out of range [ 0, 4294967295 ], got: -1");
  EXPECT_EQ(message("trace_count", "-2"),
            "Unable to parse 'trace_count'. Expecting value >= -1, got:-2");
  EXPECT_EQ(message("trace_count", "10000000000"),
            "Unable to parse 'trace_count', value is out of range [ -1, 2147483647 ], got: "
            "10000000000");
  auto two = parse_trace_update(from({{"trace_rate", std::vector<std::string>{"1", "2"}}}));
  ASSERT_FALSE(two);
  EXPECT_EQ(two.error().message(), "expect only 1 value for 'trace_rate'");
}

TEST(trace_settings, a_cleared_global_setting_returns_to_its_value_at_start) {
  auto start = started();
  auto u = parse_trace_update(from({{"trace_rate", one("56")}, {"trace_count", one("78")}}));
  ASSERT_TRUE(u);
  auto changed = apply_global(start, start, *u);
  ASSERT_TRUE(changed) << changed.error().to_string();
  EXPECT_EQ(changed->rate, 56u);
  EXPECT_EQ(changed->count, 78);
  u = parse_trace_update(from({{"trace_rate", std::nullopt}, {"trace_count", std::nullopt}}));
  auto cleared = apply_global(*changed, start, *u);
  ASSERT_TRUE(cleared);
  EXPECT_EQ(cleared->rate, 1u);
  EXPECT_EQ(cleared->count, -1);
}

TEST(trace_settings, a_model_follows_the_global_settings_it_does_not_set) {
  auto global = started();
  auto u = parse_trace_update(from({{"trace_rate", one("12")}, {"log_frequency", one("34")}}));
  auto model = apply_model({}, global, *u);
  ASSERT_TRUE(model);
  global.level = 0;
  auto merged = merge(global, *model);
  EXPECT_EQ(merged.level, 0u);
  EXPECT_EQ(merged.rate, 12u);
  EXPECT_EQ(merged.log_frequency, 34u);
  u = parse_trace_update(from({{"trace_rate", std::nullopt}, {"log_frequency", std::nullopt}}));
  model = apply_model(*model, global, *u);
  ASSERT_TRUE(model);
  EXPECT_TRUE(model->empty());
}

TEST(trace_settings, settings_that_cannot_trace_are_refused_unless_off) {
  auto global = started();
  global.file.clear();
  auto u = parse_trace_update(from({{"trace_rate", one("5")}}));
  auto r = apply_global(global, global, *u);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "Attempting to set invalid trace setting :trace file name is not given");
  global.file = "t.log";
  u = parse_trace_update(from({{"trace_rate", one("0")}}));
  r = apply_global(global, global, *u);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "Attempting to set invalid trace setting :sample rate must be non-zero");
  global.level = 0;
  EXPECT_TRUE(apply_global(global, global, *u));
}

TEST(trace_settings, reports_as_triton_does) {
  auto s = started();
  s.level |= trace_tensors;
  auto r = report(s);
  std::vector<std::string> keys;
  for (const auto& [k, v] : r)
    keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"trace_level", "trace_rate", "trace_count",
                                            "log_frequency", "trace_file", "trace_mode"}));
  EXPECT_EQ(r[0].second, (std::vector<std::string>{"TIMESTAMPS", "TENSORS"}));
  EXPECT_EQ(r[2].second, one("-1"));
  EXPECT_EQ(r[5].second, one("triton"));
  s.mode = trace_mode::opentelemetry;
  r = report(s);
  keys.clear();
  for (const auto& [k, v] : r)
    keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"trace_level", "trace_rate", "trace_count",
                                            "trace_mode", "url", "bsp_max_queue_size",
                                            "bsp_schedule_delay",
                                            "bsp_max_export_batch_size"}));
  EXPECT_EQ(level_names(0), one("OFF"));
}

} // namespace
} // namespace conch::runtime::tracing
