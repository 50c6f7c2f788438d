#pragma once

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/bytes_elements.hpp"
#include "conch/runtime/inference_request.hpp"
#include "conch/runtime/tensor.hpp"

namespace conch::tests {

/// A tensor holding a copy of `values`.
template <class T>
runtime::tensor make_tensor(std::string name, runtime::data_type type, runtime::shape_type shape,
                            const std::vector<T>& values) {
  return runtime::tensor{std::move(name), type, std::move(shape),
                         runtime::buffer::copy_of(values.data(), values.size() * sizeof(T))};
}

/// A BYTES tensor of `elements`, serialised with length prefixes.
inline runtime::tensor bytes_tensor(std::string name, runtime::shape_type shape,
                                    const std::vector<std::string>& elements) {
  std::vector<std::string_view> views(elements.begin(), elements.end());
  return runtime::tensor{std::move(name), runtime::data_type::bytes, std::move(shape),
                         runtime::serialize_bytes_elements(views)};
}

/// The raw bytes of a host tensor.
inline std::string raw_bytes(const runtime::tensor& t) {
  return std::string(reinterpret_cast<const char*>(t.data.data()), t.data.size());
}

/// The elements of a host tensor of element type T.
template <class T>
std::vector<T> values_of(const runtime::tensor& t) {
  std::vector<T> out(t.data.size() / sizeof(T));
  if (!out.empty())
    std::memcpy(out.data(), t.data.data(), out.size() * sizeof(T));
  return out;
}

/// The output called `name` of `outputs`, or nullptr.
inline const runtime::tensor* find_output(const std::vector<runtime::tensor>& outputs,
                                          const std::string& name) {
  for (const auto& t : outputs)
    if (t.name == name)
      return &t;
  return nullptr;
}

/// A request for `model` with id `id` and `inputs`.
inline runtime::inference_request make_request(std::string model, std::string id,
                                               std::vector<runtime::tensor> inputs) {
  runtime::inference_request r;
  r.model_name = std::move(model);
  r.id = std::move(id);
  r.inputs = std::move(inputs);
  return r;
}

/// A request for an identity model with one FP32 input INPUT0 of shape
/// [1, n] (or [n] when `batched` is false) holding 0, 1, ..., n-1 plus `base`.
inline runtime::inference_request fp32_request(std::string model, std::string id, size_t n = 16,
                                               float base = 0.0f, bool batched = true) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = base + static_cast<float>(i);
  runtime::shape_type shape = batched ? runtime::shape_type{1, static_cast<int64_t>(n)}
                                      : runtime::shape_type{static_cast<int64_t>(n)};
  return make_request(std::move(model), std::move(id),
                      {make_tensor("INPUT0", runtime::data_type::fp32, shape, v)});
}

/// Adds the integer request parameter `name`.
inline runtime::inference_request with_parameter(runtime::inference_request r, std::string name,
                                                 int64_t value) {
  r.parameters.push_back(runtime::parameter{std::move(name), value});
  return r;
}

} // namespace conch::tests
