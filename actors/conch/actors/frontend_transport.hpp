#pragma once

#include <functional>
#include <memory>
#include <string>

#include <caf/allowed_unsafe_message_type.hpp>

#include "conch/runtime/status.hpp"

namespace conch::actors {

/// The part of a frontend that owns its transport (libuv loops, a gRPC
/// server, or the in-process API). Its frontend supervisor calls it, one call
/// at a time, from the supervisor's own thread.
class frontend_transport {
 public:
  virtual ~frontend_transport() = default;

  /// A short name for logs and errors ("http", "grpc", "in-process").
  virtual std::string name() const = 0;

  /// Opens the transport (binds ports, starts threads).
  virtual runtime::status start() = 0;

  /// Step 2 of the stop protocol: stop admitting, answer new requests with
  /// UNAVAILABLE, let in-flight requests finish, close connections, and call
  /// `drained` (from any thread, exactly once) when nothing is left.
  virtual void begin_stop(std::function<void()> drained) = 0;

  /// Past the deadline: cancel what is in flight and close everything now.
  /// `drained` still fires once everything is released.
  virtual void abort() = 0;

  /// Whom to tell when the transport fails while serving (one of its threads
  /// ended though nobody stopped it): called from any thread, at most once
  /// per start. Its supervisor sets it before each start. A transport that
  /// cannot notice failures keeps this default, which ignores it.
  virtual void set_failure_handler(std::function<void(runtime::status)> failed) {
    (void) failed;
  }

  /// Fault injection for tests: fails as a crash would, where the transport
  /// can (see set_failure_handler); otherwise does nothing.
  virtual void inject_failure() {}
};

using frontend_transport_ptr = std::shared_ptr<frontend_transport>;

} // namespace conch::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::actors::frontend_transport_ptr)
