#include "conch/runtime/statistics/cpu_metrics.hpp"

#include <fstream>
#include <limits>
#include <sstream>
#include <string>

namespace conch::runtime::statistics {

namespace {

std::string_view first_line(std::string_view text) {
  auto end = text.find('\n');
  return end == std::string_view::npos ? text : text.substr(0, end);
}

std::optional<std::string> read_file(const char* path) {
  std::ifstream in{path};
  if (!in)
    return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The value in kB of the meminfo line starting with `key`.
std::optional<uint64_t> meminfo_kb(std::string_view text, std::string_view key) {
  std::istringstream in{std::string{text}};
  std::string name;
  while (in >> name) {
    uint64_t value = 0;
    if (!(in >> value))
      return std::nullopt;
    if (name.size() == key.size() + 1 && name.compare(0, key.size(), key) == 0
        && name.back() == ':')
      return value;
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return std::nullopt;
}

} // namespace

std::optional<cpu_times> parse_proc_stat(std::string_view text) {
  std::istringstream in{std::string{first_line(text)}};
  std::string label;
  if (!(in >> label) || label != "cpu")
    return std::nullopt;
  // user nice system idle iowait irq softirq steal; guest time is already
  // part of user and nice.
  uint64_t fields[8] = {};
  int read = 0;
  while (read < 8 && in >> fields[read])
    ++read;
  if (read < 4)
    return std::nullopt;
  cpu_times t;
  for (int i = 0; i < read; ++i)
    t.total += fields[i];
  uint64_t idle = fields[3] + (read > 4 ? fields[4] : 0);
  t.busy = t.total - idle;
  return t;
}

std::optional<memory_info> parse_meminfo(std::string_view text) {
  auto total = meminfo_kb(text, "MemTotal");
  auto available = meminfo_kb(text, "MemAvailable");
  if (!total || !available)
    return std::nullopt;
  memory_info m;
  m.total_bytes = *total * 1024;
  m.used_bytes = *available > *total ? 0 : (*total - *available) * 1024;
  return m;
}

double cpu_utilization(const cpu_times& before, const cpu_times& after) noexcept {
  if (after.total <= before.total || after.busy < before.busy)
    return 0.0;
  double share = static_cast<double>(after.busy - before.busy)
                 / static_cast<double>(after.total - before.total);
  return share > 1.0 ? 1.0 : share;
}

cpu_gauges::cpu_gauges(prometheus::Registry& registry)
  : utilization_(prometheus::BuildGauge()
                   .Name("nv_cpu_utilization")
                   .Help("CPU utilization rate [0.0 - 1.0]")
                   .Register(registry)
                   .Add({})),
    memory_total_(prometheus::BuildGauge()
                    .Name("nv_cpu_memory_total_bytes")
                    .Help("CPU total memory (RAM), in bytes")
                    .Register(registry)
                    .Add({})),
    memory_used_(prometheus::BuildGauge()
                   .Name("nv_cpu_memory_used_bytes")
                   .Help("CPU used memory (RAM), in bytes")
                   .Register(registry)
                   .Add({})) {
}

bool cpu_gauges::sample() {
  auto stat = read_file("/proc/stat");
  auto meminfo = read_file("/proc/meminfo");
  return stat && meminfo && update(*stat, *meminfo);
}

bool cpu_gauges::update(std::string_view proc_stat, std::string_view meminfo) {
  auto times = parse_proc_stat(proc_stat);
  auto memory = parse_meminfo(meminfo);
  if (!times || !memory)
    return false;
  std::lock_guard<std::mutex> guard{mutex_};
  utilization_.Set(previous_ ? cpu_utilization(*previous_, *times) : 0.0);
  previous_ = times;
  memory_total_.Set(static_cast<double>(memory->total_bytes));
  memory_used_.Set(static_cast<double>(memory->used_bytes));
  return true;
}

} // namespace conch::runtime::statistics
