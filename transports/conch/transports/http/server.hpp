#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "conch/runtime/statistics/connection_stats.hpp"
#include "conch/runtime/status.hpp"
#include "conch/transports/http/handler.hpp"
#include "conch/transports/http/server_options.hpp"

namespace conch::transports::http {

class loop;

/// The HTTP/1.1 transport: `thread_count` libuv loop threads that accept
/// connections, parse requests and pass them to one handler, and write the
/// answers the handler's responders send from any thread.
///
/// `start`, `begin_stop`, `abort` and `bound_port` are called from one
/// controlling thread at a time (the frontend supervisor's). The same object
/// may be started again once a stop has drained; a new object works too.
class server {
 public:
  // -- constructors ----------------------------------------------------------

  /// A server over `h`. It counts into `stats` and takes request bytes from
  /// `input` where given (so that they outlive it, across restarts), else
  /// into its own.
  server(server_options options, std::shared_ptr<handler> h,
         std::shared_ptr<runtime::statistics::connection_stats> stats = nullptr,
         std::shared_ptr<runtime::statistics::byte_budget> input = nullptr);
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  /// Aborts if running and joins the loop threads.
  ~server();

  // -- lifecycle -------------------------------------------------------------

  /// Binds the port and starts the loop threads. A port in use is
  /// `unavailable`; a bad address or option `invalid_argument`; calling it
  /// while running (before the last stop drained) `unavailable`.
  runtime::status start();

  /// Stops accepting; lets requests in flight be answered and written; closes
  /// idle connections at once and busy ones after their last answer (requests
  /// arriving meanwhile get 503 and Connection: close). Calls `drained` once,
  /// from a loop thread, when no connection and no loop thread remains; at
  /// once, on this thread, when the server is not running.
  void begin_stop(std::function<void()> drained);

  /// Closes every connection and the listeners now; unanswered requests are
  /// cancelled (their cancel hooks run). `drained` callbacks given to
  /// `begin_stop` still fire, once.
  void abort();

  /// True between a successful start and the end of the stop that follows.
  bool running() const;

  // -- failures ----------------------------------------------------------------

  /// Whom to tell, once per start, when a loop thread ends though nobody
  /// stopped the server (a crash of the transport): called on that thread,
  /// while the other loops still run. Set before start().
  void set_failure_handler(std::function<void(runtime::status)> failed) {
    failure_handler_ = std::move(failed);
  }

  /// Fault injection: ends the first loop as a crash would (its connections
  /// close, the failure handler hears of it). For tests of what supervises
  /// the server; does nothing when it is not running.
  void inject_loop_failure();

  // -- properties ------------------------------------------------------------

  /// The port the latest start bound (the picked one when options.port is
  /// 0); 0 before the first start.
  uint16_t bound_port() const noexcept { return bound_port_; }

  const server_options& options() const noexcept { return options_; }

  /// The counts of this server's connections and limits, over all its runs.
  /// Any thread may read them, while and after it runs.
  const std::shared_ptr<runtime::statistics::connection_stats>& stats() const noexcept {
    return stats_;
  }

  /// The budget of request bytes its connections share (max_inflight_bytes).
  const std::shared_ptr<runtime::statistics::byte_budget>& input_budget() const noexcept {
    return input_;
  }

 private:
  struct run_state;

  runtime::status open_loops(std::vector<std::shared_ptr<loop>>& loops);
  void join_threads();

  server_options options_;
  std::shared_ptr<handler> handler_;
  std::vector<std::shared_ptr<loop>> loops_;
  std::vector<std::thread> threads_;
  std::shared_ptr<run_state> state_;
  std::function<void(runtime::status)> failure_handler_;
  std::shared_ptr<runtime::statistics::connection_stats> stats_;
  std::shared_ptr<runtime::statistics::byte_budget> input_;
  uint16_t bound_port_ = 0;
};

} // namespace conch::transports::http
