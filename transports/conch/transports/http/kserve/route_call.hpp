#pragma once

#include <memory>
#include <optional>

#include "conch/transports/gateway.hpp"
#include "conch/transports/http/kserve/admission.hpp"
#include "conch/transports/http/kserve/route.hpp"
#include "conch/transports/http/request.hpp"
#include "conch/transports/http/responder.hpp"
#include "conch/transports/protocol/client_shm.hpp"
#include "conch/transports/pattern/text_pattern.hpp"
#include "conch/runtime/shm/region_registry.hpp"

namespace conch::transports::http::kserve {

/// What the KServe routes share across requests: the gateway into the
/// server and the frontend's settings. Read-only once the frontend runs.
struct route_settings {
  gateway_ptr server;
  /// Request headers whose names match become string request parameters of
  /// inference requests; none when empty.
  std::optional<pattern::text_pattern> header_forward_pattern;
  /// The server's shared-memory regions (gateway::shared_memory); never null.
  std::shared_ptr<runtime::shm::region_registry> shared_memory;
  /// Whether this frontend's clients may register regions and name them.
  protocol::client_shm client_shm = protocol::client_shm::denied;
};

/// One request on its way through a route: where it goes, the request, the
/// responder that answers it, and the admission ticket it holds while it
/// waits on the server. Routes move the responder (and ticket) into their
/// callbacks. Runs on a loop thread.
struct route_call {
  const route_settings& settings;
  route target;
  request_ptr req;
  responder res;
  admission::ticket ticket;
};

} // namespace conch::transports::http::kserve
