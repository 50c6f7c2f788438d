#include "conch/runtime/statistics/cpu_metrics.hpp"

#include <string>

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

using namespace conch::runtime::statistics;

namespace {

const char* const meminfo_text = "MemTotal:        1000 kB\n"
                                 "MemFree:          100 kB\n"
                                 "MemAvailable:     250 kB\n"
                                 "Buffers:           10 kB\n";

std::string serialize(prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

} // namespace

TEST(cpu_metrics, proc_stat_counts_idle_and_iowait_as_not_busy) {
  auto t = parse_proc_stat("cpu  10 2 8 70 10 0 0 0 5 0\ncpu0 1 1 1 1 1 1 1 1\n");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->total, 100u);
  EXPECT_EQ(t->busy, 20u);
  EXPECT_FALSE(parse_proc_stat("intr 1 2 3\n"));
  EXPECT_FALSE(parse_proc_stat("cpu 1 2\n"));
  EXPECT_FALSE(parse_proc_stat(""));
}

TEST(cpu_metrics, meminfo_used_is_total_less_available) {
  auto m = parse_meminfo(meminfo_text);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->total_bytes, 1000u * 1024);
  EXPECT_EQ(m->used_bytes, 750u * 1024);
  EXPECT_FALSE(parse_meminfo("MemTotal: 10 kB\n"));
  EXPECT_FALSE(parse_meminfo("MemTotal: x kB\nMemAvailable: 1 kB\n"));
}

TEST(cpu_metrics, utilization_is_the_busy_share_between_samples) {
  EXPECT_DOUBLE_EQ(cpu_utilization({20, 100}, {70, 200}), 0.5);
  EXPECT_EQ(cpu_utilization({20, 100}, {20, 100}), 0.0);
  EXPECT_EQ(cpu_utilization({20, 100}, {10, 90}), 0.0);
}

TEST(cpu_metrics, gauges_exist_at_zero_and_follow_updates) {
  prometheus::Registry registry;
  cpu_gauges gauges{registry};
  auto text = serialize(registry);
  EXPECT_NE(text.find("# TYPE nv_cpu_utilization gauge\nnv_cpu_utilization 0\n"),
            std::string::npos)
    << text;
  EXPECT_NE(text.find("# HELP nv_cpu_memory_total_bytes CPU total memory (RAM), in bytes\n"),
            std::string::npos);
  ASSERT_TRUE(gauges.update("cpu 20 0 0 80\n", meminfo_text));
  ASSERT_TRUE(gauges.update("cpu 70 0 0 130\n", meminfo_text));
  text = serialize(registry);
  EXPECT_NE(text.find("\nnv_cpu_utilization 0.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nnv_cpu_memory_total_bytes 1024000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nnv_cpu_memory_used_bytes 768000\n"), std::string::npos) << text;
  EXPECT_FALSE(gauges.update("garbage", meminfo_text));
}

TEST(cpu_metrics, sample_reads_this_machine) {
  prometheus::Registry registry;
  cpu_gauges gauges{registry};
  ASSERT_TRUE(gauges.sample());
  auto text = serialize(registry);
  EXPECT_EQ(text.find("\nnv_cpu_memory_total_bytes 0\n"), std::string::npos) << text;
}
