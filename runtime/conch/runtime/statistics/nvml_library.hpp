#pragma once

#include <memory>

#include "conch/runtime/statistics/nvml_source.hpp"

namespace conch::runtime::statistics {

/// Opens libnvidia-ml.so.1 with dlopen (Conch has no link-time dependency on
/// the driver) and initialises NVML. Returns null when the library, one of
/// the functions every reading needs, or nvmlInit fails: the machine then
/// simply has no GPU metrics. The source shuts NVML down and closes the
/// library when destroyed.
std::unique_ptr<nvml_source> open_nvml_library();

} // namespace conch::runtime::statistics
