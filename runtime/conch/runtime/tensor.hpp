#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/data_type.hpp"
#include "conch/runtime/result.hpp"

namespace conch::runtime {

/// The dimensions of a tensor; -1 stands for "any" in a model configuration.
using shape_type = std::vector<int64_t>;

/// The number of elements of a fully known shape (1 for a scalar shape []).
/// Returns -1 if a dimension is negative and -2 on overflow.
int64_t element_count(const shape_type& shape) noexcept;

/// "[1,16]", for messages.
std::string shape_string(const shape_type& shape);

/// A named, typed, shaped tensor whose bytes are a buffer. A tensor aliases the
/// bytes it arrived in: copying a tensor never copies its data.
struct tensor {
  std::string name;
  data_type type = data_type::invalid;
  shape_type shape;
  buffer data;

  /// The byte size the shape and type imply; for BYTES, the size of the
  /// serialised elements is only known from the data, so this returns -1.
  int64_t expected_byte_size() const noexcept;

  /// Checks that the buffer's size agrees with the type and the shape (for
  /// BYTES: that the data holds exactly element_count length-prefixed
  /// elements). The message is Triton's; it names the tensor, and `model`
  /// when given ("... for model 'm'").
  status validate_data(std::string_view model = {}) const;
};

} // namespace conch::runtime
