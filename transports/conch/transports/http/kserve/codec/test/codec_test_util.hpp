#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "conch/runtime/tensor.hpp"
#include "conch/transports/http/request.hpp"
#include "conch/transports/http/response.hpp"

namespace conch::transports::http::kserve::codec::test {

/// A POST infer request whose body is `json` followed by `binary`. With
/// `declare_header`, it carries Inference-Header-Content-Length: json.size().
request_ptr make_request(const std::string& json, const std::string& binary = {},
                         bool declare_header = false);

/// The bytes of `values`, as the binary extension lays them out.
template <class T>
std::string raw_bytes(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty())
    std::memcpy(out.data(), values.data(), out.size());
  return out;
}

/// The values held by `bytes`.
template <class T>
std::vector<T> values_of(const runtime::buffer& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty())
    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

/// `bytes` as a string.
std::string text_of(const runtime::buffer& bytes);

/// Serialised BYTES elements.
std::string bytes_elements(const std::vector<std::string>& elements);

/// A host tensor holding a copy of `bytes`.
runtime::tensor make_tensor(std::string name, runtime::data_type type, runtime::shape_type shape,
                            const std::string& bytes);

/// The whole response body, its buffers joined.
std::string body_text(const response& r);

} // namespace conch::transports::http::kserve::codec::test
