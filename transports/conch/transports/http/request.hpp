#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/statistics/connection_stats.hpp"
#include "conch/transports/http/header_map.hpp"

namespace conch::transports::http {

/// One parsed HTTP request. The transport fills it on a loop thread and then
/// hands it to the handler; from then on it is read-only, except for the
/// cancel hook, which any thread may register.
class request {
 public:
  // -- properties ------------------------------------------------------------

  /// The method as sent ("GET", "POST", ...).
  std::string method;
  /// The path without query string, as sent (not decoded).
  std::string path;
  /// The path split on '/' and percent-decoded (see request_target).
  std::vector<std::string> segments;
  /// The header fields; names compare without regard to case.
  header_map headers;
  /// The whole body in one contiguous host buffer that owns its bytes, after
  /// chunked transfer coding and Content-Encoding were removed (the
  /// Content-Encoding field itself is kept). Views into it
  /// (slices) keep it alive, so tensors may alias the body without a copy.
  runtime::buffer body;
  /// HTTP version, as in 1.1.
  int version_major = 1;
  int version_minor = 1;
  /// True when the connection stays open after this request's response.
  bool keep_alive = true;
  /// When its first byte was parsed (now_ns()); taken only while the
  /// process traces requests (runtime::tracing_active()), 0 otherwise.
  uint64_t received_ns = 0;
  /// The body's share of the frontend's input budget, given back when the
  /// request is destroyed.
  runtime::statistics::byte_ticket input_bytes;

  // -- cancellation ----------------------------------------------------------

  /// Registers `hook`, to be called once if the client goes away (the
  /// connection closes, or the transport aborts) before this request is
  /// answered. The transport calls it on its loop thread; if the request was
  /// cancelled already, `hook` runs at once on the calling thread. A later
  /// registration replaces an earlier one. Thread-safe.
  void on_cancel(std::function<void()> hook);

  /// True once the client went away without this request being answered.
  /// Thread-safe.
  bool cancelled() const;

  /// Marks the request cancelled and runs the hook, once. Called by the
  /// transport on its loop thread.
  void cancel();

  /// Marks the request answered: the hook is dropped and never runs. Called
  /// by the transport on its loop thread once the response is complete.
  void settle();

 private:
  mutable std::mutex mutex_;
  std::function<void()> hook_;  // guarded by mutex_
  bool cancelled_ = false;      // guarded by mutex_
  bool settled_ = false;        // guarded by mutex_
};

/// Requests are shared between the transport and the handler.
using request_ptr = std::shared_ptr<request>;

} // namespace conch::transports::http
