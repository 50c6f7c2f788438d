#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>
#include <vector>

#include "conch/runtime/inference_request.hpp"
#include "conch/runtime/result.hpp"

namespace conch::runtime::backends::repeat {

/// What the repeat backend sends for one request, read from its inputs and
/// parameters before the first response.
struct stream_plan {
  /// The number of responses before the final, empty one.
  size_t count = 0;
  /// The input "IN" whose elements the responses carry as "OUT"; null when
  /// the count came from the "repeat_count" parameter.
  const tensor* in = nullptr;
  /// The elements of a BYTES "IN", viewing its buffer.
  std::vector<std::string_view> bytes_elements;
  /// The "DELAY" input's milliseconds, one per response; missing entries
  /// count as zero.
  std::vector<uint32_t> delays_ms;

  /// The wait before response `i`.
  std::chrono::milliseconds delay(size_t i) const noexcept;
};

/// Reads the plan of `request`: N from the element count of input "IN", else
/// from the integer parameter "repeat_count", else 0; delays from the UINT32
/// input "DELAY". INVALID_ARG naming the input or parameter on bad data.
result<stream_plan> plan_stream(const inference_request& request);

} // namespace conch::runtime::backends::repeat
