#include "conch/runtime/statistics/gpu_metrics.hpp"

#include <algorithm>
#include <string_view>

namespace conch::runtime::statistics {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  return s;
}

// The GPU one CUDA_VISIBLE_DEVICES entry names, if exactly one.
std::optional<unsigned> named_gpu(nvml_source& nvml, std::string_view entry, unsigned count) {
  if (entry.empty())
    return std::nullopt;
  if (std::all_of(entry.begin(), entry.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (entry.size() > 9)
      return std::nullopt;
    unsigned index = static_cast<unsigned>(std::stoul(std::string{entry}));
    return index < count ? std::optional<unsigned>{index} : std::nullopt;
  }
  if (entry.substr(0, 4) != "GPU-")
    return std::nullopt;
  std::optional<unsigned> found;
  for (unsigned i = 0; i < count; ++i) {
    auto uuid = nvml.uuid(i);
    if (uuid && uuid->compare(0, entry.size(), entry) == 0) {
      if (found)
        return std::nullopt;
      found = i;
    }
  }
  return found;
}

prometheus::Family<prometheus::Gauge>& gauge_family(prometheus::Registry& registry,
                                                    const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry);
}

} // namespace

std::vector<unsigned> visible_gpus(nvml_source& nvml, const char* cuda_visible_devices) {
  unsigned count = nvml.device_count();
  std::vector<unsigned> out;
  if (cuda_visible_devices == nullptr) {
    for (unsigned i = 0; i < count; ++i)
      out.push_back(i);
    return out;
  }
  std::string_view rest{cuda_visible_devices};
  while (!rest.empty()) {
    auto comma = rest.find(',');
    auto gpu = named_gpu(nvml, trim(rest.substr(0, comma)), count);
    if (!gpu || std::find(out.begin(), out.end(), *gpu) != out.end())
      break;
    out.push_back(*gpu);
    if (comma == std::string_view::npos)
      break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

std::unique_ptr<gpu_gauges> gpu_gauges::make(prometheus::Registry& registry,
                                             std::unique_ptr<nvml_source> nvml,
                                             const char* cuda_visible_devices) {
  if (!nvml)
    return nullptr;
  std::vector<std::pair<unsigned, std::string>> gpus;
  for (unsigned index : visible_gpus(*nvml, cuda_visible_devices))
    if (auto uuid = nvml->uuid(index))
      gpus.emplace_back(index, std::move(*uuid));
  if (gpus.empty())
    return nullptr;
  std::unique_ptr<gpu_gauges> gauges{new gpu_gauges(std::move(nvml))};
  for (const auto& [index, uuid] : gpus)
    gauges->add_gpu(registry, index, uuid);
  gauges->sample();
  return gauges;
}

void gpu_gauges::add_gpu(prometheus::Registry& registry, unsigned index, const std::string& uuid) {
  const prometheus::Labels labels{{"gpu_uuid", uuid}};
  gpu g;
  g.index = index;
  if (nvml_->utilization_percent(index))
    g.utilization = &gauge_family(registry, "nv_gpu_utilization",
                                  "GPU utilization rate [0.0 - 1.0)")
                       .Add(labels);
  if (nvml_->memory(index)) {
    g.memory_total = &gauge_family(registry, "nv_gpu_memory_total_bytes",
                                   "GPU total memory, in bytes")
                        .Add(labels);
    g.memory_used = &gauge_family(registry, "nv_gpu_memory_used_bytes",
                                  "GPU used memory, in bytes")
                       .Add(labels);
  }
  if (nvml_->power_usage_mw(index))
    g.power_usage = &gauge_family(registry, "nv_gpu_power_usage", "GPU power usage in watts")
                       .Add(labels);
  if (nvml_->power_limit_mw(index))
    g.power_limit = &gauge_family(registry, "nv_gpu_power_limit",
                                  "GPU power management limit in watts")
                       .Add(labels);
  if (auto energy = nvml_->energy_mj(index)) {
    g.energy = &prometheus::BuildCounter()
                  .Name("nv_energy_consumption")
                  .Help("GPU energy consumption in joules since the Triton Server started")
                  .Register(registry)
                  .Add(labels);
    g.energy_start_mj = g.energy_reported_mj = *energy;
  }
  gpus_.push_back(g);
}

void gpu_gauges::sample() {
  std::lock_guard<std::mutex> guard{mutex_};
  for (auto& g : gpus_)
    update(g);
}

void gpu_gauges::update(gpu& g) {
  if (auto percent = g.utilization ? nvml_->utilization_percent(g.index) : std::nullopt)
    g.utilization->Set(static_cast<double>(*percent) / 100.0);
  if (auto memory = g.memory_total ? nvml_->memory(g.index) : std::nullopt) {
    g.memory_total->Set(static_cast<double>(memory->total_bytes));
    g.memory_used->Set(static_cast<double>(memory->used_bytes));
  }
  if (auto mw = g.power_usage ? nvml_->power_usage_mw(g.index) : std::nullopt)
    g.power_usage->Set(static_cast<double>(*mw) / 1000.0);
  if (auto mw = g.power_limit ? nvml_->power_limit_mw(g.index) : std::nullopt)
    g.power_limit->Set(static_cast<double>(*mw) / 1000.0);
  // The counter only rises: a reading below the last one (a driver reload)
  // is skipped until the energy passes it again.
  if (auto mj = g.energy ? nvml_->energy_mj(g.index) : std::nullopt; mj && *mj > g.energy_reported_mj) {
    g.energy->Increment(static_cast<double>(*mj - g.energy_reported_mj) / 1000.0);
    g.energy_reported_mj = *mj;
  }
}

} // namespace conch::runtime::statistics
