#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "grpc_service.pb.h"

namespace conch::tests {

/// The raw little-endian bytes of `values`, as raw_*_contents carry them.
template <class T>
std::string raw_bytes(const std::vector<T>& values) {
  std::string s(values.size() * sizeof(T), '\0');
  std::memcpy(s.data(), values.data(), s.size());
  return s;
}

/// The values of a raw_*_contents entry.
template <class T>
std::vector<T> from_raw(const std::string& raw) {
  std::vector<T> v(raw.size() / sizeof(T));
  std::memcpy(v.data(), raw.data(), v.size() * sizeof(T));
  return v;
}

/// Adds input `name` to a ModelInferRequest.
inline inference::ModelInferRequest::InferInputTensor*
add_input(inference::ModelInferRequest& r, const std::string& name, const std::string& type,
          std::vector<int64_t> shape) {
  auto* in = r.add_inputs();
  in->set_name(name);
  in->set_datatype(type);
  for (auto d : shape)
    in->add_shape(d);
  return in;
}

/// Sets the shared-memory parameters of an input or output.
template <class Tensor>
void place_in_shared_memory(Tensor& t, const std::string& region, int64_t byte_size,
                            int64_t offset = 0) {
  auto& p = *t.mutable_parameters();
  p["shared_memory_region"].set_string_param(region);
  p["shared_memory_byte_size"].set_int64_param(byte_size);
  if (offset != 0)
    p["shared_memory_offset"].set_int64_param(offset);
}

/// 16 INT32 values from `from` on: what Triton's "simple" model takes.
inline std::vector<int32_t> iota16(int32_t from) {
  std::vector<int32_t> v(16);
  for (int i = 0; i < 16; ++i)
    v[i] = from + i;
  return v;
}

} // namespace conch::tests
