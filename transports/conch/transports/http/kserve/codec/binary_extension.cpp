#include "conch/transports/http/kserve/codec/binary_extension.hpp"

#include <charconv>

namespace conch::transports::http::kserve::codec {

using runtime::status;

runtime::result<json_header_extent> read_json_header_extent(const request& req) {
  const auto body_size = req.body.size();
  const auto* field = req.headers.find(inference_header_content_length);
  if (field == nullptr)
    return json_header_extent{body_size, false};
  auto text = trim(*field);
  auto digits = text;
  bool negative = !digits.empty() && digits.front() == '-';
  if (negative)
    digits.remove_prefix(1);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size())
    return runtime::invalid_argument("Unable to parse Inference-Header-Content-Length, got: "
                                     + std::string{text});
  if (negative || ec == std::errc::result_out_of_range || value > body_size)
    return runtime::invalid_argument("inference header size should be in range (0, "
                                     + std::to_string(body_size) + "), got: " + std::string{text});
  return json_header_extent{static_cast<size_t>(value), true};
}

runtime::result<runtime::buffer> binary_section::take(size_t size, std::string_view input,
                                                      std::string_view model) {
  if (size > remaining()) {
    auto missing = size - remaining();
    offset_ = body_.size();
    return runtime::invalid_argument("unexpected size for input '" + std::string{input}
                                     + "', expecting " + std::to_string(missing)
                                     + " additional bytes for model '" + std::string{model} + "'");
  }
  auto out = body_.slice(offset_, size);
  offset_ += size;
  return out;
}

status binary_section::finish(std::string_view model) const {
  if (remaining() == 0)
    return status::ok();
  return runtime::invalid_argument("unexpected additional input data for model '"
                                   + std::string{model} + "'");
}

} // namespace conch::transports::http::kserve::codec
