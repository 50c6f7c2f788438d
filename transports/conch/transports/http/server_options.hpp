#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "conch/runtime/statistics/connection_stats.hpp"
#include "conch/runtime/status.hpp"
#include "conch/transports/http/listener_options.hpp"
#include "conch/transports/http/response.hpp"

namespace conch::transports::http {

/// Writes the answer to a refusal of the transport's own (see
/// server_options::refusal_answer).
using refusal_writer = std::function<response(
  int status, std::string_view message, std::optional<runtime::statistics::request_refusal> why)>;

/// How the HTTP transport listens and what it accepts: what a user sets
/// (listener_options) and the transport's own tunables.
struct server_options : listener_options {
  /// Requests one connection may have unanswered before the transport stops
  /// reading from it.
  size_t max_pipelined_requests = 32;
  /// Bytes of written-but-unsent output above which the transport stops
  /// reading from a connection until the client catches up.
  size_t write_high_water = 4 * 1024 * 1024;
  /// Bytes of unsent streamed output beyond which a connection whose client
  /// does not read is closed (its request is cancelled).
  size_t max_stream_backlog = 64 * 1024 * 1024;
  /// The backlog passed to listen(2).
  int listen_backlog = 1024;

  /// The most a stop may wait on clients, from begin_stop to the last
  /// connection closed: no wait on a client (its request still arriving,
  /// its answers unread, its close) runs past it, and the drain deadline is
  /// drawn in to leave an answer cut short time to be written within it. A
  /// frontend sets what its server's exit timeout leaves. 0: no bound.
  std::chrono::milliseconds stop_timeout{0};

  /// Writes the answer to a request the transport refuses before any
  /// handler sees it (malformed, a body or head too large, the input budget
  /// spent), from its status, Triton's message and, for a limit, which one:
  /// a protocol with its own error shapes (OpenAI's 413) sets it. Unset:
  /// the KServe error body `{"error": "<message>"}` with that status.
  refusal_writer refusal_answer;
};

/// The answer to a request the transport refuses itself: `status` and
/// Triton's `message`, written by `writer` where it is set, else KServe's
/// `{"error": "<message>"}`.
response refuse(const refusal_writer& writer, int status, std::string_view message,
                std::optional<runtime::statistics::request_refusal> why = std::nullopt);

/// The largest body a request may have: max_input_size, or the whole
/// max_inflight_bytes budget where that is smaller, so that a body which
/// could never be admitted is refused as too large rather than as busy.
size_t body_limit(const server_options& options) noexcept;

/// INVALID_ARG naming the first option out of range (a port outside 0 to
/// 65535, a negative timeout, a zero size or thread count).
runtime::status check(const server_options& options);

} // namespace conch::transports::http
