#include "conch/transports/http/kserve/codec/json_tensor_write.hpp"

#include <cstring>
#include <type_traits>

#include "conch/runtime/bytes_elements.hpp"

namespace conch::transports::http::kserve::codec {

namespace {

using runtime::data_type;
using runtime::status;

status size_mismatch(const runtime::tensor& t) {
  return runtime::internal_error("output tensor shape does not match size of output for '"
                                 + t.name + "'");
}

template <class T>
void write_value(json_writer& w, T v) {
  if constexpr (std::is_same_v<T, bool>)
    w.Bool(v);
  else if constexpr (std::is_floating_point_v<T>)
    w.Double(static_cast<double>(v));
  else if constexpr (std::is_signed_v<T>)
    w.Int64(v);
  else
    w.Uint64(v);
}

template <class T>
status write_fixed(json_writer& w, const runtime::tensor& t, int64_t count) {
  if (t.data.size() != static_cast<uint64_t>(count) * sizeof(T))
    return size_mismatch(t);
  const std::byte* p = t.data.data();
  w.StartArray();
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      write_value(w, std::to_integer<uint8_t>(p[i]) != 0);
    } else {
      T v;
      std::memcpy(&v, p + i * sizeof(T), sizeof(T));
      write_value(w, v);
    }
  }
  w.EndArray();
  return status::ok();
}

status write_strings(json_writer& w, const runtime::tensor& t, int64_t count) {
  auto items = runtime::split_bytes_elements(t.data.data(), t.data.size());
  if (!items || items->size() != static_cast<uint64_t>(count))
    return size_mismatch(t);
  w.StartArray();
  for (auto s : *items)
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  w.EndArray();
  return status::ok();
}

} // namespace

status write_json_tensor_data(json_writer& w, const runtime::tensor& t) {
  auto count = runtime::element_count(t.shape);
  if (count < 0)
    return size_mismatch(t);
  switch (t.type) {
    case data_type::bool_: return write_fixed<bool>(w, t, count);
    case data_type::uint8: return write_fixed<uint8_t>(w, t, count);
    case data_type::uint16: return write_fixed<uint16_t>(w, t, count);
    case data_type::uint32: return write_fixed<uint32_t>(w, t, count);
    case data_type::uint64: return write_fixed<uint64_t>(w, t, count);
    case data_type::int8: return write_fixed<int8_t>(w, t, count);
    case data_type::int16: return write_fixed<int16_t>(w, t, count);
    case data_type::int32: return write_fixed<int32_t>(w, t, count);
    case data_type::int64: return write_fixed<int64_t>(w, t, count);
    case data_type::fp32: return write_fixed<float>(w, t, count);
    case data_type::fp64: return write_fixed<double>(w, t, count);
    case data_type::bytes: return write_strings(w, t, count);
    case data_type::fp16:
    case data_type::bf16:
      return runtime::invalid_argument("sending " + std::string{runtime::data_type_name(t.type)}
                                       + " data via JSON is not supported. Please use the "
                                         "binary data format for output");
    default: break;
  }
  return runtime::invalid_argument("Invalid data type for output tensor");
}

} // namespace conch::transports::http::kserve::codec
