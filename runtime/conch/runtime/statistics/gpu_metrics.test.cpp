#include "conch/runtime/statistics/gpu_metrics.hpp"

#include <dlfcn.h>

#include <map>
#include <string>

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include "conch/runtime/statistics/nvml_library.hpp"

using namespace conch::runtime::statistics;

namespace {

// One fake GPU; an unset reading is one NVML refuses.
struct fake_gpu {
  std::string uuid;
  std::optional<unsigned> utilization;
  std::optional<gpu_memory> memory;
  std::optional<unsigned> power_mw;
  std::optional<unsigned> limit_mw;
  std::optional<uint64_t> energy_mj;
};

// The GPUs live in a shared vector so that a test can change readings after
// handing the source to the gauges.
class fake_nvml final : public nvml_source {
 public:
  explicit fake_nvml(std::shared_ptr<std::vector<fake_gpu>> gpus) : gpus_(std::move(gpus)) {}
  unsigned device_count() override { return static_cast<unsigned>(gpus_->size()); }
  std::optional<std::string> uuid(unsigned i) override { return gpus_->at(i).uuid; }
  std::optional<unsigned> utilization_percent(unsigned i) override {
    return gpus_->at(i).utilization;
  }
  std::optional<gpu_memory> memory(unsigned i) override { return gpus_->at(i).memory; }
  std::optional<unsigned> power_usage_mw(unsigned i) override { return gpus_->at(i).power_mw; }
  std::optional<unsigned> power_limit_mw(unsigned i) override { return gpus_->at(i).limit_mw; }
  std::optional<uint64_t> energy_mj(unsigned i) override { return gpus_->at(i).energy_mj; }

 private:
  std::shared_ptr<std::vector<fake_gpu>> gpus_;
};

fake_gpu full_gpu(const std::string& uuid) {
  return {uuid, 37, gpu_memory{80'000'000'000, 1'500'000'000}, 123'456, 700'000, 5'000'000};
}

std::string exposition(prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST(gpu_metrics, every_visible_gpu_gets_six_series_labelled_by_uuid_alone) {
  auto gpus = std::make_shared<std::vector<fake_gpu>>(
    std::vector<fake_gpu>{full_gpu("GPU-aaaa-1"), full_gpu("GPU-bbbb-2")});
  prometheus::Registry registry;
  auto gauges = gpu_gauges::make(registry, std::make_unique<fake_nvml>(gpus), nullptr);
  ASSERT_NE(gauges, nullptr);
  EXPECT_EQ(gauges->gpu_count(), 2u);
  auto text = exposition(registry);
  for (const char* uuid : {"GPU-aaaa-1", "GPU-bbbb-2"}) {
    std::string l = std::string{"{gpu_uuid=\""} + uuid + "\"} ";
    EXPECT_TRUE(contains(text, "\nnv_gpu_utilization" + l + "0.37\n")) << text;
    EXPECT_TRUE(contains(text, "\nnv_gpu_memory_total_bytes" + l + "80000000000\n")) << text;
    EXPECT_TRUE(contains(text, "\nnv_gpu_memory_used_bytes" + l + "1500000000\n")) << text;
    EXPECT_TRUE(contains(text, "\nnv_gpu_power_usage" + l + "123.456\n")) << text;
    EXPECT_TRUE(contains(text, "\nnv_gpu_power_limit" + l + "700\n")) << text;
    EXPECT_TRUE(contains(text, "\nnv_energy_consumption" + l + "0\n")) << text;
  }
  EXPECT_TRUE(contains(text, "# HELP nv_gpu_utilization GPU utilization rate [0.0 - 1.0)\n"
                             "# TYPE nv_gpu_utilization gauge\n"));
  EXPECT_TRUE(contains(text, "# HELP nv_energy_consumption GPU energy consumption in joules "
                             "since the Triton Server started\n# TYPE nv_energy_consumption "
                             "counter\n"));
}

TEST(gpu_metrics, sample_follows_the_readings_and_energy_counts_from_start) {
  auto gpus = std::make_shared<std::vector<fake_gpu>>(std::vector<fake_gpu>{full_gpu("GPU-a")});
  prometheus::Registry registry;
  auto gauges = gpu_gauges::make(registry, std::make_unique<fake_nvml>(gpus), nullptr);
  ASSERT_NE(gauges, nullptr);
  auto& g = gpus->front();
  g.utilization = 99;
  g.memory = gpu_memory{80'000'000'000, 2'000'000'000};
  g.power_mw = 250'000;
  g.energy_mj = 5'012'500;
  gauges->sample();
  auto text = exposition(registry);
  EXPECT_TRUE(contains(text, "nv_gpu_utilization{gpu_uuid=\"GPU-a\"} 0.99\n")) << text;
  EXPECT_TRUE(contains(text, "nv_gpu_memory_used_bytes{gpu_uuid=\"GPU-a\"} 2000000000\n"));
  EXPECT_TRUE(contains(text, "nv_gpu_power_usage{gpu_uuid=\"GPU-a\"} 250\n"));
  EXPECT_TRUE(contains(text, "nv_energy_consumption{gpu_uuid=\"GPU-a\"} 12.5\n")) << text;
  // A refused reading and a lower energy reading leave the series alone.
  g.utilization.reset();
  g.energy_mj = 1'000;
  gauges->sample();
  text = exposition(registry);
  EXPECT_TRUE(contains(text, "nv_gpu_utilization{gpu_uuid=\"GPU-a\"} 0.99\n")) << text;
  EXPECT_TRUE(contains(text, "nv_energy_consumption{gpu_uuid=\"GPU-a\"} 12.5\n")) << text;
}

TEST(gpu_metrics, readings_a_gpu_lacks_at_start_get_no_series) {
  auto gpu = full_gpu("GPU-old");
  gpu.energy_mj.reset();
  gpu.limit_mw.reset();
  auto gpus = std::make_shared<std::vector<fake_gpu>>(std::vector<fake_gpu>{gpu});
  prometheus::Registry registry;
  auto gauges = gpu_gauges::make(registry, std::make_unique<fake_nvml>(gpus), nullptr);
  ASSERT_NE(gauges, nullptr);
  auto text = exposition(registry);
  EXPECT_FALSE(contains(text, "nv_energy_consumption")) << text;
  EXPECT_FALSE(contains(text, "nv_gpu_power_limit")) << text;
  EXPECT_TRUE(contains(text, "nv_gpu_power_usage{gpu_uuid=\"GPU-old\"} 123.456\n")) << text;
}

TEST(gpu_metrics, no_nvml_or_no_visible_gpu_registers_nothing) {
  prometheus::Registry registry;
  EXPECT_EQ(gpu_gauges::make(registry, nullptr, nullptr), nullptr);
  auto none = std::make_shared<std::vector<fake_gpu>>();
  EXPECT_EQ(gpu_gauges::make(registry, std::make_unique<fake_nvml>(none), nullptr), nullptr);
  auto one = std::make_shared<std::vector<fake_gpu>>(std::vector<fake_gpu>{full_gpu("GPU-a")});
  EXPECT_EQ(gpu_gauges::make(registry, std::make_unique<fake_nvml>(one), ""), nullptr);
  EXPECT_EQ(gpu_gauges::make(registry, std::make_unique<fake_nvml>(one), "-1"), nullptr);
  EXPECT_EQ(exposition(registry), "");
}

TEST(gpu_metrics, cuda_visible_devices_picks_by_index_or_uuid_prefix_until_a_bad_entry) {
  auto gpus = std::make_shared<std::vector<fake_gpu>>(std::vector<fake_gpu>{
    full_gpu("GPU-aa11"), full_gpu("GPU-aa22"), full_gpu("GPU-bb33")});
  fake_nvml nvml{gpus};
  using list = std::vector<unsigned>;
  EXPECT_EQ(visible_gpus(nvml, nullptr), (list{0, 1, 2}));
  EXPECT_EQ(visible_gpus(nvml, "2,0"), (list{2, 0}));
  EXPECT_EQ(visible_gpus(nvml, " 1 , GPU-bb"), (list{1, 2}));
  EXPECT_EQ(visible_gpus(nvml, "0,7,1"), (list{0}));
  EXPECT_EQ(visible_gpus(nvml, "GPU-aa,1"), list{});   // ambiguous prefix
  EXPECT_EQ(visible_gpus(nvml, "1,1,2"), (list{1}));   // a repeat ends the list
  EXPECT_EQ(visible_gpus(nvml, "MIG-aa11/1/0"), list{});
  EXPECT_EQ(visible_gpus(nvml, ""), list{});
}

TEST(gpu_metrics, the_library_opens_exactly_where_the_driver_library_loads) {
  void* driver = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  auto nvml = open_nvml_library();
  if (driver == nullptr) {
    EXPECT_EQ(nvml, nullptr);
    return;
  }
  dlclose(driver);
  // With a driver, NVML may still refuse to start (no GPU); when it starts,
  // every GPU it counts has a UUID.
  if (!nvml)
    return;
  for (unsigned i = 0; i < nvml->device_count(); ++i) {
    EXPECT_EQ(nvml->uuid(i).value_or("").rfind("GPU-", 0), 0u);
  }
}
