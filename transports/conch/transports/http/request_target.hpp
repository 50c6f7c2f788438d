#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/result.hpp"

namespace conch::transports::http {

/// The path of a request target, raw and split into decoded segments.
struct request_target {
  /// The path as sent, without query string or fragment ("/v2/models/a%20b").
  std::string path;
  /// The path split on '/', each part percent-decoded: "/v2/models/a%20b"
  /// gives {"v2", "models", "a b"}; "/" gives {}; a trailing slash gives a
  /// trailing empty segment, so routes can match paths exactly.
  std::vector<std::string> segments;
};

/// Decodes `%XX` escapes. An escape that is not two hex digits is an error.
runtime::result<std::string> percent_decode(std::string_view text);

/// Parses an origin-form ("/a/b?q") or absolute-form ("http://h/a/b") target.
/// The query string and fragment are dropped.
runtime::result<request_target> parse_request_target(std::string_view target);

} // namespace conch::transports::http
