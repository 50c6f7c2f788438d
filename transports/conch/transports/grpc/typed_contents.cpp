#include "conch/transports/grpc/typed_contents.hpp"

#include <cstring>

#include "conch/runtime/bytes_elements.hpp"

namespace conch::transports::grpc {

namespace {

using runtime::data_type;

runtime::status count_error(const std::string& name, int64_t expected, int size) {
  return runtime::invalid_argument("unexpected number of elements in contents of input '" + name
                                   + "': expected " + std::to_string(expected) + ", got "
                                   + std::to_string(size));
}

// Converts each element of `values` to Out and lays them out densely.
template <class Out, class Field>
runtime::result<runtime::buffer> pack(const std::string& name, int64_t count,
                                      const Field& values) {
  if (static_cast<int64_t>(values.size()) != count)
    return count_error(name, count, values.size());
  auto buf = runtime::buffer::allocate(values.size() * sizeof(Out));
  auto* out = buf.data();
  for (const auto& v : values) {
    auto converted = static_cast<Out>(v);
    std::memcpy(out, &converted, sizeof(Out));
    out += sizeof(Out);
  }
  return buf;
}

runtime::result<runtime::buffer> pack_bytes(const std::string& name, int64_t count,
                                            const inference::InferTensorContents& c) {
  if (static_cast<int64_t>(c.bytes_contents_size()) != count)
    return count_error(name, count, c.bytes_contents_size());
  std::string out;
  for (const auto& element : c.bytes_contents())
    runtime::append_bytes_element(out, element);
  return runtime::buffer::copy_of(out.data(), out.size());
}

} // namespace

runtime::result<runtime::buffer> pack_typed_contents(const std::string& name, data_type type,
                                                     int64_t count,
                                                     const inference::InferTensorContents& c) {
  switch (type) {
    case data_type::bool_:
      return pack<uint8_t>(name, count, c.bool_contents());
    case data_type::uint8:
      return pack<uint8_t>(name, count, c.uint_contents());
    case data_type::uint16:
      return pack<uint16_t>(name, count, c.uint_contents());
    case data_type::uint32:
      return pack<uint32_t>(name, count, c.uint_contents());
    case data_type::uint64:
      return pack<uint64_t>(name, count, c.uint64_contents());
    case data_type::int8:
      return pack<int8_t>(name, count, c.int_contents());
    case data_type::int16:
      return pack<int16_t>(name, count, c.int_contents());
    case data_type::int32:
      return pack<int32_t>(name, count, c.int_contents());
    case data_type::int64:
      return pack<int64_t>(name, count, c.int64_contents());
    case data_type::fp32:
      return pack<float>(name, count, c.fp32_contents());
    case data_type::fp64:
      return pack<double>(name, count, c.fp64_contents());
    case data_type::bytes:
      return pack_bytes(name, count, c);
    default:
      return runtime::invalid_argument("input '" + name + "' of datatype "
                                       + std::string{runtime::data_type_name(type)}
                                       + " must be sent in raw_input_contents");
  }
}

} // namespace conch::transports::grpc
