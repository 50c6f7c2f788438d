#include <gtest/gtest.h>

#include "conch/runtime/tracing/trace_settings.hpp"

namespace conch::runtime::tracing {
namespace {

TEST(trace_config, reads_tritons_documented_example) {
  trace_settings s;
  auto st = parse_trace_config({"triton,file=/tmp/trace.json", "triton,log-frequency=50",
                                "rate=100", "level=TIMESTAMPS", "count=100"},
                               s);
  ASSERT_TRUE(st) << st.to_string();
  EXPECT_EQ(s.file, "/tmp/trace.json");
  EXPECT_EQ(s.log_frequency, 50u);
  EXPECT_EQ(s.rate, 100u);
  EXPECT_EQ(s.level, trace_timestamps);
  EXPECT_EQ(s.count, 100);
  EXPECT_EQ(s.mode, trace_mode::triton);
}

TEST(trace_config, levels_combine_and_off_wins) {
  trace_settings s;
  ASSERT_TRUE(parse_trace_config({"level=TIMESTAMPS", "level=tensors"}, s));
  EXPECT_EQ(s.level, trace_timestamps | trace_tensors);
  ASSERT_TRUE(parse_trace_config({"level=max", "level=OFF"}, s));
  EXPECT_EQ(s.level, 0u);
}

TEST(trace_config, reads_the_opentelemetry_section_only_in_that_mode) {
  trace_settings s;
  ASSERT_TRUE(parse_trace_config({"mode=opentelemetry", "opentelemetry,url=localhost:10000/v1/traces",
                                  "opentelemetry,resource=service.name=test_triton",
                                  "opentelemetry,resource=test.key=test.value",
                                  "opentelemetry,bsp_schedule_delay=10", "triton,file=x.json"},
                                 s));
  EXPECT_EQ(s.mode, trace_mode::opentelemetry);
  EXPECT_EQ(s.opentelemetry.url, "localhost:10000/v1/traces");
  ASSERT_EQ(s.opentelemetry.resource.size(), 2u);
  EXPECT_EQ(s.opentelemetry.resource[0].second, "test_triton");
  EXPECT_EQ(s.opentelemetry.bsp_schedule_delay_ms, 10u);
  EXPECT_TRUE(s.file.empty());
}

TEST(trace_config, errors_use_tritons_messages) {
  auto message = [](std::string arg) {
    trace_settings s;
    auto st = parse_trace_config({arg}, s);
    EXPECT_FALSE(st) << arg;
    return st.message();
  };
  EXPECT_EQ(message(",rate=1"),
            "Bad option: \"--trace-config\".\nNo trace mode specified. --trace-config option "
            "format is <trace mode>,<setting>=<value> or <setting>=<value>. Got ,rate=1");
  EXPECT_EQ(message("rate"), "Bad option: \"--trace-config\".\n--trace-config option format "
                             "is '<trace mode>,<setting>=<value>'. Got rate");
  EXPECT_EQ(message("Zipkin,url=x"),
            "Bad option: \"--trace-config\".\ninvalid value for trace mode option: zipkin. "
            "Available options are \"triton\" and \"opentelemetry\"");
  EXPECT_EQ(message("level=LOUD"),
            "Bad option: \"--trace-config level\".\ninvalid value for trace level option: loud");
  EXPECT_EQ(message("rate=fast"),
            "Bad option: \"--trace-config rate\".\nInvalid option value. Got fast");
  EXPECT_EQ(message("count=-2"),
            "Bad option: \"--trace-config count\".\nProvided option value is out of bound. "
            "Got -2");
}

} // namespace
} // namespace conch::runtime::tracing
