#pragma once

#include "conch/transports/http/request.hpp"
#include "conch/transports/http/responder.hpp"

namespace conch::transports::http {

/// What the transport calls with each complete request. Implementations
/// route the request and answer through the responder, now or later, from
/// any thread.
class handler {
 public:
  virtual ~handler() = default;

  /// Handles one request. Runs on a loop thread and must not block: hand
  /// slow work elsewhere and keep (move) the responder until it is done.
  virtual void handle(request_ptr req, responder res) = 0;
};

} // namespace conch::transports::http
