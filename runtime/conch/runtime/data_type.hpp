#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace conch::runtime {

/// A tensor element type. The values equal Triton's DataType / TRITONSERVER_DataType.
enum class data_type : uint8_t {
  invalid = 0,
  bool_ = 1,
  uint8 = 2,
  uint16 = 3,
  uint32 = 4,
  uint64 = 5,
  int8 = 6,
  int16 = 7,
  int32 = 8,
  int64 = 9,
  fp16 = 10,
  fp32 = 11,
  fp64 = 12,
  bytes = 13,
  bf16 = 14,
};

/// The size of one element in bytes; 0 for BYTES (variable) and INVALID.
size_t element_size(data_type t) noexcept;

/// The protocol name ("FP32", "BYTES"); "INVALID" for an unknown value.
std::string_view data_type_name(data_type t) noexcept;

/// The model-configuration name ("TYPE_FP32", "TYPE_STRING").
std::string_view config_type_name(data_type t) noexcept;

/// Parses a protocol name ("FP32"); nullopt when unknown.
std::optional<data_type> parse_data_type(std::string_view name) noexcept;

/// Parses a model-configuration name ("TYPE_FP32"); nullopt when unknown.
std::optional<data_type> parse_config_type(std::string_view name) noexcept;

} // namespace conch::runtime
