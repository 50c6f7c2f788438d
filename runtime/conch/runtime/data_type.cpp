#include "conch/runtime/data_type.hpp"

#include <array>

namespace conch::runtime {

namespace {

struct type_info {
  data_type type;
  size_t size;
  std::string_view name;
  std::string_view config_name;
};

constexpr std::array<type_info, 15> types{{
  {data_type::invalid, 0, "INVALID", "TYPE_INVALID"},
  {data_type::bool_, 1, "BOOL", "TYPE_BOOL"},
  {data_type::uint8, 1, "UINT8", "TYPE_UINT8"},
  {data_type::uint16, 2, "UINT16", "TYPE_UINT16"},
  {data_type::uint32, 4, "UINT32", "TYPE_UINT32"},
  {data_type::uint64, 8, "UINT64", "TYPE_UINT64"},
  {data_type::int8, 1, "INT8", "TYPE_INT8"},
  {data_type::int16, 2, "INT16", "TYPE_INT16"},
  {data_type::int32, 4, "INT32", "TYPE_INT32"},
  {data_type::int64, 8, "INT64", "TYPE_INT64"},
  {data_type::fp16, 2, "FP16", "TYPE_FP16"},
  {data_type::fp32, 4, "FP32", "TYPE_FP32"},
  {data_type::fp64, 8, "FP64", "TYPE_FP64"},
  {data_type::bytes, 0, "BYTES", "TYPE_STRING"},
  {data_type::bf16, 2, "BF16", "TYPE_BF16"},
}};

const type_info& info(data_type t) noexcept {
  auto i = static_cast<size_t>(t);
  return i < types.size() ? types[i] : types[0];
}

} // namespace

size_t element_size(data_type t) noexcept { return info(t).size; }

std::string_view data_type_name(data_type t) noexcept { return info(t).name; }

std::string_view config_type_name(data_type t) noexcept { return info(t).config_name; }

std::optional<data_type> parse_data_type(std::string_view name) noexcept {
  for (const auto& x : types)
    if (x.type != data_type::invalid && x.name == name)
      return x.type;
  return std::nullopt;
}

std::optional<data_type> parse_config_type(std::string_view name) noexcept {
  for (const auto& x : types)
    if (x.type != data_type::invalid && x.config_name == name)
      return x.type;
  return std::nullopt;
}

} // namespace conch::runtime
