#include "conch/runtime/status.hpp"

namespace conch::runtime {

std::string_view errc_name(errc code) noexcept {
  switch (code) {
    case errc::ok: return "OK";
    case errc::internal: return "INTERNAL";
    case errc::not_found: return "NOT_FOUND";
    case errc::invalid_argument: return "INVALID_ARG";
    case errc::unavailable: return "UNAVAILABLE";
    case errc::unsupported: return "UNSUPPORTED";
    case errc::already_exists: return "ALREADY_EXISTS";
    case errc::cancelled: return "CANCELLED";
    case errc::unknown: return "UNKNOWN";
  }
  return "UNKNOWN";
}

std::string status::to_string() const {
  if (is_ok())
    return "OK";
  std::string out{errc_name(code_)};
  out += ": ";
  out += message_;
  return out;
}

status status::with_prefix(std::string_view prefix) const {
  if (is_ok())
    return *this;
  std::string m{prefix};
  m += message_;
  return {code_, std::move(m)};
}

} // namespace conch::runtime
