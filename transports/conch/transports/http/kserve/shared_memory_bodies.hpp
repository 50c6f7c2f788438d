#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "conch/runtime/result.hpp"
#include "conch/transports/http/request.hpp"
#include "conch/runtime/shm/region_registry.hpp"

namespace conch::transports::http::kserve {

/// The body of POST /v2/systemsharedmemory/region/{r}/register.
struct system_register_body {
  /// The POSIX shared-memory object's name, as given to shm_open ("/x").
  std::string key;
  /// Where the region starts in the object; 0 when absent.
  uint64_t offset = 0;
  /// The region's size in bytes.
  uint64_t byte_size = 0;
};

/// Parses `{"key": str, "offset"?: uint, "byte_size": uint}`. INVALID_ARG
/// naming the field for a missing key or byte_size, a value of the wrong
/// type, or a body that is not a JSON object.
runtime::result<system_register_body> parse_system_register_body(const request& req);

/// The status answer: `[{"name","key","offset","byte_size"}, ...]`.
std::string system_status_json(const std::vector<runtime::shm::region_registry::region_ptr>& regions);

/// The body of POST /v2/cudasharedmemory/region/{r}/register.
struct cuda_register_body {
  /// The decoded cudaIpcMemHandle_t; its size is the registry's to check.
  std::string raw_handle;
  /// The GPU the memory lives on.
  int64_t device_id = 0;
  /// The region's size in bytes.
  uint64_t byte_size = 0;
};

/// Parses `{"raw_handle": {"b64": str}, "device_id": uint, "byte_size":
/// uint}`, decoding the base64 handle. INVALID_ARG naming the field for a
/// missing one, a value of the wrong type, bad base64, or a body that is not
/// a JSON object.
runtime::result<cuda_register_body> parse_cuda_register_body(const request& req);

/// The status answer: `[{"name","device_id","byte_size"}, ...]`.
std::string
cuda_status_json(const std::vector<runtime::shm::region_registry::cuda_region_ptr>& regions);

} // namespace conch::transports::http::kserve
