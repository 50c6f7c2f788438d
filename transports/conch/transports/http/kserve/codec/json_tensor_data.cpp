#include "conch/transports/http/kserve/codec/json_tensor_data.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "conch/runtime/bytes_elements.hpp"
#include "conch/transports/http/kserve/codec/json_reader.hpp"

namespace conch::transports::http::kserve::codec {

namespace {

using runtime::data_type;
using runtime::status;
using elements = std::vector<const rapidjson::Value*>;

status flatten(const rapidjson::Value& v, int depth, elements& out) {
  if (!v.IsArray()) {
    out.push_back(&v);
    return status::ok();
  }
  if (depth > max_json_depth)
    return parse_error("data", "arrays are nested deeper than "
                                 + std::to_string(max_json_depth) + " levels");
  for (const auto& e : v.GetArray())
    CONCH_RUNTIME_RETURN_IF_ERROR(flatten(e, depth + 1, out));
  return status::ok();
}

status element_error(std::string_view input, size_t index, std::string_view what) {
  return parse_error("data", "element " + std::to_string(index) + " of input '"
                               + std::string{input} + "' " + std::string{what});
}

// Reads one element of integral or floating type T; `name` is the protocol
// type name used in messages.
template <class T>
status read_element(const rapidjson::Value& v, T& out, std::string_view name, std::string_view input,
                    size_t index) {
  using limits = std::numeric_limits<T>;
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.IsBool())
      return element_error(input, index, "is not a boolean (true or false)");
    out = v.GetBool();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!v.IsNumber())
      return element_error(input, index, "is not a number");
    double d = v.GetDouble();
    if (std::isfinite(d) && std::fabs(d) > static_cast<double>(limits::max()))
      return element_error(input, index, "is out of range for " + std::string{name});
    out = static_cast<T>(d);
  } else if constexpr (std::is_signed_v<T>) {
    if (!v.IsInt64() && !v.IsUint64())
      return element_error(input, index, "is not an integer");
    if (!v.IsInt64() || v.GetInt64() < limits::min() || v.GetInt64() > limits::max())
      return element_error(input, index, "is out of range for " + std::string{name});
    out = static_cast<T>(v.GetInt64());
  } else {
    if (!v.IsInt64() && !v.IsUint64())
      return element_error(input, index, "is not an integer");
    if (!v.IsUint64() || v.GetUint64() > limits::max())
      return element_error(input, index, "is out of range for " + std::string{name});
    out = static_cast<T>(v.GetUint64());
  }
  return status::ok();
}

template <class T>
runtime::result<runtime::buffer> read_fixed(const elements& items, data_type type,
                                            std::string_view input) {
  auto out = runtime::buffer::allocate(items.size() * sizeof(T));
  auto name = runtime::data_type_name(type);
  for (size_t i = 0; i < items.size(); ++i) {
    T value{};
    CONCH_RUNTIME_RETURN_IF_ERROR(read_element<T>(*items[i], value, name, input, i));
    if constexpr (std::is_same_v<T, bool>) {
      auto byte = static_cast<uint8_t>(value ? 1 : 0);
      std::memcpy(out.data() + i, &byte, 1);
    } else {
      std::memcpy(out.data() + i * sizeof(T), &value, sizeof(T));
    }
  }
  return out;
}

runtime::result<runtime::buffer> read_strings(const elements& items, std::string_view input) {
  std::vector<std::string_view> strings;
  strings.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i]->IsString())
      return element_error(input, i, "is not a string");
    strings.push_back(string_of(*items[i]));
  }
  return runtime::serialize_bytes_elements(strings);
}

runtime::result<runtime::buffer> convert(const elements& items, data_type type,
                                         std::string_view input) {
  switch (type) {
    case data_type::bool_: return read_fixed<bool>(items, type, input);
    case data_type::uint8: return read_fixed<uint8_t>(items, type, input);
    case data_type::uint16: return read_fixed<uint16_t>(items, type, input);
    case data_type::uint32: return read_fixed<uint32_t>(items, type, input);
    case data_type::uint64: return read_fixed<uint64_t>(items, type, input);
    case data_type::int8: return read_fixed<int8_t>(items, type, input);
    case data_type::int16: return read_fixed<int16_t>(items, type, input);
    case data_type::int32: return read_fixed<int32_t>(items, type, input);
    case data_type::int64: return read_fixed<int64_t>(items, type, input);
    case data_type::fp32: return read_fixed<float>(items, type, input);
    case data_type::fp64: return read_fixed<double>(items, type, input);
    case data_type::bytes: return read_strings(items, input);
    default: break;
  }
  return runtime::invalid_argument("invalid datatype for input " + std::string{input});
}

} // namespace

runtime::result<runtime::buffer> read_json_tensor_data(const rapidjson::Value& data,
                                                       data_type type, int64_t element_count,
                                                       std::string_view input_name) {
  if (type == data_type::fp16 || type == data_type::bf16)
    return runtime::invalid_argument("receiving " + std::string{runtime::data_type_name(type)}
                                     + " data via JSON is not supported. Please use the binary "
                                       "data format for input "
                                     + std::string{input_name});
  if (type == data_type::invalid)
    return runtime::invalid_argument("invalid datatype for input " + std::string{input_name});
  if (!data.IsArray())
    return parse_error("data", "expected an array");
  elements items;
  CONCH_RUNTIME_RETURN_IF_ERROR(flatten(data, 1, items));
  // BYTES elements are counted against the shape by the request's
  // validation, with the core's text, as Triton counts them; any other type
  // must fill the shape exactly.
  if (element_count < 0
      || (type != data_type::bytes && items.size() != static_cast<uint64_t>(element_count)))
    return runtime::internal_error(
      "Unable to parse 'data': Shape does not match true shape of 'data' field");
  return convert(items, type, input_name);
}

} // namespace conch::transports::http::kserve::codec
