#include "conch/runtime/statistics/nvml_library.hpp"

#include <dlfcn.h>

namespace conch::runtime::statistics {

namespace {

// The few NVML declarations used here, as in nvml.h: every function returns
// an nvmlReturn_t, NVML_SUCCESS being 0; a device is an opaque pointer.
using nvml_return = int;
using nvml_device = void*;
constexpr nvml_return nvml_success = 0;
constexpr unsigned uuid_buffer_size = 96; // NVML_DEVICE_UUID_V2_BUFFER_SIZE

struct nvml_utilization {
  unsigned gpu;
  unsigned memory;
};

struct nvml_memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct nvml_functions {
  nvml_return (*init)() = nullptr;
  nvml_return (*shutdown)() = nullptr;
  nvml_return (*device_count)(unsigned*) = nullptr;
  nvml_return (*handle_by_index)(unsigned, nvml_device*) = nullptr;
  nvml_return (*uuid)(nvml_device, char*, unsigned) = nullptr;
  nvml_return (*utilization)(nvml_device, nvml_utilization*) = nullptr;
  nvml_return (*memory)(nvml_device, nvml_memory*) = nullptr;
  nvml_return (*power_usage)(nvml_device, unsigned*) = nullptr;
  nvml_return (*power_limit)(nvml_device, unsigned*) = nullptr;
  nvml_return (*energy)(nvml_device, unsigned long long*) = nullptr;
};

template <class F>
void bind(void* library, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(library, name));
}

class nvml_library final : public nvml_source {
 public:
  nvml_library(void* library, const nvml_functions& fns) : library_(library), fns_(fns) {}

  ~nvml_library() override {
    (void) fns_.shutdown();
    dlclose(library_);
  }

  unsigned device_count() override {
    unsigned count = 0;
    return fns_.device_count(&count) == nvml_success ? count : 0;
  }

  std::optional<std::string> uuid(unsigned index) override {
    char buffer[uuid_buffer_size] = {};
    auto device = handle(index);
    if (!device || fns_.uuid(*device, buffer, uuid_buffer_size) != nvml_success)
      return std::nullopt;
    return std::string{buffer};
  }

  std::optional<unsigned> utilization_percent(unsigned index) override {
    nvml_utilization u{};
    if (!read(fns_.utilization, index, &u))
      return std::nullopt;
    return u.gpu;
  }

  std::optional<gpu_memory> memory(unsigned index) override {
    nvml_memory m{};
    if (!read(fns_.memory, index, &m))
      return std::nullopt;
    return gpu_memory{m.total, m.used};
  }

  std::optional<unsigned> power_usage_mw(unsigned index) override {
    unsigned mw = 0;
    return read(fns_.power_usage, index, &mw) ? std::optional<unsigned>{mw} : std::nullopt;
  }

  std::optional<unsigned> power_limit_mw(unsigned index) override {
    unsigned mw = 0;
    return read(fns_.power_limit, index, &mw) ? std::optional<unsigned>{mw} : std::nullopt;
  }

  std::optional<uint64_t> energy_mj(unsigned index) override {
    unsigned long long mj = 0;
    return read(fns_.energy, index, &mj) ? std::optional<uint64_t>{mj} : std::nullopt;
  }

 private:
  std::optional<nvml_device> handle(unsigned index) {
    nvml_device device = nullptr;
    if (fns_.handle_by_index(index, &device) != nvml_success)
      return std::nullopt;
    return device;
  }

  // Calls one optional reading function; false when it is missing or fails.
  template <class T>
  bool read(nvml_return (*fn)(nvml_device, T*), unsigned index, T* out) {
    auto device = handle(index);
    return fn != nullptr && device && fn(*device, out) == nvml_success;
  }

  void* library_;
  nvml_functions fns_;
};

} // namespace

std::unique_ptr<nvml_source> open_nvml_library() {
  void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr)
    return nullptr;
  nvml_functions fns;
  bind(library, fns.init, "nvmlInit_v2");
  bind(library, fns.shutdown, "nvmlShutdown");
  bind(library, fns.device_count, "nvmlDeviceGetCount_v2");
  bind(library, fns.handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
  bind(library, fns.uuid, "nvmlDeviceGetUUID");
  bind(library, fns.utilization, "nvmlDeviceGetUtilizationRates");
  bind(library, fns.memory, "nvmlDeviceGetMemoryInfo");
  bind(library, fns.power_usage, "nvmlDeviceGetPowerUsage");
  bind(library, fns.power_limit, "nvmlDeviceGetPowerManagementLimit");
  bind(library, fns.energy, "nvmlDeviceGetTotalEnergyConsumption");
  if (fns.init == nullptr || fns.shutdown == nullptr || fns.device_count == nullptr
      || fns.handle_by_index == nullptr || fns.uuid == nullptr || fns.init() != nvml_success) {
    dlclose(library);
    return nullptr;
  }
  return std::make_unique<nvml_library>(library, fns);
}

} // namespace conch::runtime::statistics
