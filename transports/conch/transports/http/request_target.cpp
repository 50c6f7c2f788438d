#include "conch/transports/http/request_target.hpp"

namespace conch::transports::http {

namespace {

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

// The path part of an absolute-form target ("http://host:port/p" -> "/p").
std::string_view strip_authority(std::string_view target) noexcept {
  auto scheme_end = target.find("://");
  if (scheme_end == std::string_view::npos)
    return target;
  auto path_begin = target.find('/', scheme_end + 3);
  return path_begin == std::string_view::npos ? std::string_view{"/"} : target.substr(path_begin);
}

} // namespace

runtime::result<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    int hi = i + 2 < text.size() ? hex_value(text[i + 1]) : -1;
    int lo = i + 2 < text.size() ? hex_value(text[i + 2]) : -1;
    if (hi < 0 || lo < 0)
      return runtime::invalid_argument("malformed percent-encoding in request path");
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

runtime::result<request_target> parse_request_target(std::string_view target) {
  auto path = strip_authority(target);
  path = path.substr(0, path.find_first_of("?#"));
  if (path.empty() || path.front() != '/')
    return runtime::invalid_argument("request target must start with '/'");
  request_target out;
  out.path = std::string{path};
  auto rest = path.substr(1);
  if (rest.empty())
    return out;
  out.segments.reserve(8);  // the deepest KServe path has 7
  for (;;) {
    auto slash = rest.find('/');
    auto decoded = percent_decode(rest.substr(0, slash));
    if (!decoded)
      return decoded.error();
    out.segments.push_back(std::move(*decoded));
    if (slash == std::string_view::npos)
      break;
    rest = rest.substr(slash + 1);
  }
  return out;
}

} // namespace conch::transports::http
