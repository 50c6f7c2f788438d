#include "conch/transports/http/server_options.hpp"

#include <algorithm>

namespace conch::transports::http {

size_t body_limit(const server_options& o) noexcept {
  auto budget = o.policy.max_inflight_bytes;
  return budget == 0 ? o.max_input_size : std::min(o.max_input_size, budget);
}

runtime::status check(const server_options& o) {
  if (o.port < 0 || o.port > 65535)
    return runtime::invalid_argument("port must be between 0 and 65535, got "
                                     + std::to_string(o.port));
  if (o.thread_count < 1)
    return runtime::invalid_argument("thread_count must be at least 1");
  struct timeout {
    const char* name;
    std::chrono::milliseconds value;
  };
  for (auto t : {timeout{"header_timeout", o.policy.header_timeout}, timeout{"body_timeout", o.policy.body_timeout},
                 timeout{"keepalive_timeout", o.policy.keepalive_timeout},
                 timeout{"write_timeout", o.policy.write_timeout},
                 timeout{"drain_timeout", o.policy.drain_timeout},
                 timeout{"stop_timeout", o.stop_timeout}})
    if (t.value.count() < 0)
      return runtime::invalid_argument(std::string{t.name} + " must not be negative, got "
                                       + std::to_string(t.value.count()) + " ms");
  if (o.max_input_size == 0)
    return runtime::invalid_argument("max_input_size must be greater than 0");
  if (o.max_header_size == 0)
    return runtime::invalid_argument("max_header_size must be greater than 0");
  return runtime::status::ok();
}

response refuse(const refusal_writer& writer, int status, std::string_view message,
                std::optional<runtime::statistics::request_refusal> why) {
  return writer ? writer(status, message, why) : response::error(status, message);
}

} // namespace conch::transports::http
