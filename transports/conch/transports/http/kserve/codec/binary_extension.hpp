#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/result.hpp"
#include "conch/transports/http/request.hpp"

namespace conch::transports::http::kserve::codec {

/// The request header field that gives the JSON part's length (spec §1.6).
inline constexpr std::string_view inference_header_content_length =
  "Inference-Header-Content-Length";

/// Where a request body's JSON part ends.
struct json_header_extent {
  /// The length of the JSON part in bytes.
  size_t length = 0;
  /// True when the request carried Inference-Header-Content-Length.
  bool declared = false;
};

/// Reads Inference-Header-Content-Length from `req`: absent means the whole
/// body is JSON. A value that is not a decimal number is invalid_argument
/// "Unable to parse Inference-Header-Content-Length, got: <v>"; one beyond
/// the body is invalid_argument "inference header size should be in range
/// (0, <body size>), got: <v>".
runtime::result<json_header_extent> read_json_header_extent(const request& req);

/// The binary part of a request body: the bytes after the JSON part, handed
/// out in order as slices that alias the body (no copy).
class binary_section {
 public:
  // -- constructors ----------------------------------------------------------

  /// The bytes of `body` from `offset` on. Requires offset <= body.size().
  binary_section(runtime::buffer body, size_t offset) noexcept
    : body_(std::move(body)), offset_(offset) {}

  // -- consuming -------------------------------------------------------------

  /// The next `size` bytes, for input `input` of model `model`. Too few left
  /// is invalid_argument "unexpected size for input '<input>', expecting <n>
  /// additional bytes for model '<model>'".
  runtime::result<runtime::buffer> take(size_t size, std::string_view input,
                                        std::string_view model);

  /// Ok when every byte was taken; else invalid_argument "unexpected
  /// additional input data for model '<model>'".
  runtime::status finish(std::string_view model) const;

  /// The bytes not yet taken.
  size_t remaining() const noexcept { return body_.size() - offset_; }

 private:
  runtime::buffer body_;
  size_t offset_;
};

} // namespace conch::transports::http::kserve::codec
