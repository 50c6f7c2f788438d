#include "conch/transports/http/kserve/header_forwarding.hpp"

namespace conch::transports::http::kserve {

runtime::status forward_headers(const header_map& headers, const std::regex& pattern,
                                runtime::parameter_list& out) {
  for (const auto& [name, value] : headers) {
    auto forwarded = forwarding::forwards_header(name, pattern);
    if (!forwarded)
      return forwarded.error();
    if (*forwarded)
      out.push_back(runtime::parameter{name, value});
  }
  return runtime::status::ok();
}

} // namespace conch::transports::http::kserve
