#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/buffer.hpp"
#include "conch/transports/http/header_map.hpp"

namespace conch::transports::http {

/// A complete HTTP response: status, header fields and a body made of
/// buffers that are written to the socket one after another without being
/// copied. The transport adds Content-Length, Connection and Date-free framing
/// itself; handlers set only the fields that describe their content.
class response {
 public:
  // -- constructors ----------------------------------------------------------

  response() = default;
  explicit response(int status) : status(status) {}

  /// A response whose body is a copy of `text`, with `content_type` set.
  static response text(int status, std::string_view text,
                       std::string_view content_type = "text/plain");

  /// The error body of the KServe protocol, `{"error":"<message>"}`, as
  /// application/json.
  static response error(int status, std::string_view message);

  // -- properties ------------------------------------------------------------

  /// The status code (200, 404, ...).
  int status = 200;
  /// Header fields describing the content (Content-Type, Content-Encoding...).
  header_map headers;
  /// The body, written in order; the buffers must be host-accessible.
  std::vector<runtime::buffer> body;

  /// The body's length in bytes, summed over its buffers.
  size_t body_size() const noexcept;

  /// Appends a copy of `bytes` to the body.
  void append(std::string_view bytes);
};

/// `text` as the contents of a JSON string literal (without the quotes).
std::string json_escape(std::string_view text);

} // namespace conch::transports::http
