#pragma once

#include <cstdint>
#include <string_view>

namespace conch::runtime {

/// Where a buffer's bytes live. The values equal TRITONSERVER_MemoryType.
enum class memory_type : uint8_t {
  /// Pageable host memory.
  cpu = 0,
  /// Page-locked host memory, usable for asynchronous device copies.
  cpu_pinned = 1,
  /// Device memory of the GPU named by the buffer's device id.
  gpu = 2,
};

/// "CPU", "CPU_PINNED" or "GPU".
std::string_view memory_type_name(memory_type t) noexcept;

} // namespace conch::runtime
