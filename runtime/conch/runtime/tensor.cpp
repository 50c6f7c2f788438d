#include "conch/runtime/tensor.hpp"

#include <limits>

#include "conch/runtime/bytes_elements.hpp"

namespace conch::runtime {

int64_t element_count(const shape_type& shape) noexcept {
  int64_t n = 1;
  for (auto d : shape) {
    if (d < 0)
      return -1;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      return -2;
    n *= d;
  }
  return n;
}

std::string shape_string(const shape_type& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0)
      out += ',';
    out += std::to_string(shape[i]);
  }
  out += ']';
  return out;
}

int64_t tensor::expected_byte_size() const noexcept {
  if (type == data_type::bytes)
    return -1;
  auto n = element_count(shape);
  if (n < 0)
    return n;
  auto size = static_cast<int64_t>(element_size(type));
  if (size != 0 && n > std::numeric_limits<int64_t>::max() / size)
    return -2;
  return n * size;
}

status tensor::validate_data(std::string_view model) const {
  auto n = element_count(shape);
  if (n < 0)
    return invalid_argument("input '" + name + "' has an invalid shape " + shape_string(shape));
  // Built only for an error: validation runs for every input of every request.
  auto for_model = [model] {
    return model.empty() ? std::string{} : " for model '" + std::string{model} + "'";
  };
  if (type == data_type::bytes) {
    if (!data.host_accessible())
      return status::ok(); // cannot inspect device memory; the backend checks
    auto count = count_bytes_elements(data.data(), data.size());
    if (!count)
      return count.error().with_prefix("input '" + name + "': ");
    const auto got = static_cast<int64_t>(*count);
    if (got < n)
      return invalid_argument("expected " + std::to_string(n)
                              + " string elements for inference input '" + name + "'"
                              + for_model() + ", got " + std::to_string(got));
    if (got > n)
      return invalid_argument("unexpected number of string elements " + std::to_string(got)
                              + " for inference input '" + name + "'" + for_model()
                              + ", expecting " + std::to_string(n));
    return status::ok();
  }
  auto expected = expected_byte_size();
  if (expected < 0 || static_cast<uint64_t>(expected) != data.size())
    return invalid_argument("input byte size mismatch for input '" + name + "'" + for_model()
                            + ". Expected " + std::to_string(expected) + ", got "
                            + std::to_string(data.size()));
  return status::ok();
}

} // namespace conch::runtime
