#include "conch/transports/http/kserve/header_forwarding.hpp"

#include "conch/transports/protocol/request_limits.hpp"

namespace conch::transports::http::kserve {

runtime::status forward_headers(const header_map& headers, const pattern::text_pattern& pattern,
                                runtime::parameter_list& out) {
  for (const auto& [name, value] : headers) {
    auto forwarded = forwarding::forwards_header(name, pattern);
    if (!forwarded)
      return forwarded.error();
    if (*forwarded) {
      out.push_back(runtime::parameter{name, value});
      // Headers are small and many fit in the head's limit: each one that
      // becomes a parameter counts against the request's parameters.
      CONCH_RUNTIME_RETURN_IF_ERROR(protocol::check_parameter_count("the request", out.size()));
    }
  }
  return runtime::status::ok();
}

} // namespace conch::transports::http::kserve
