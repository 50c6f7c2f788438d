#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include <uv.h>

#include "conch/runtime/status.hpp"
#include "conch/transports/http/completion_queue.hpp"
#include "conch/transports/http/handler.hpp"
#include "conch/transports/http/loop_shared.hpp"
#include "conch/transports/http/server_options.hpp"

namespace conch::transports::http {

class connection;

/// One libuv event loop and everything it owns: a listening socket, the
/// connections it accepted, and the completion queue responders post to.
/// Set up on the starting thread (`open`), then run on its own thread
/// (`run`); after that only `command` may be called from other threads.
///
/// After each request it dispatches, the loop polls its completion queue
/// (and, without blocking, its sockets) for a short while instead of
/// sleeping until a responder or a client wakes it: a small request is
/// answered within microseconds, a client that got its answer sends the
/// next request within microseconds, and a wake-up through the kernel would
/// cost as much again (a halted vCPU, tens of microseconds). Only one loop of a server
/// polls at a time (the holder of the shared poll token), and a poll that
/// finds nothing yields the processor, so polling never starves the threads
/// that produce the answers.
class loop {
 public:
  /// A loop whose handler is `h`; the loops of one server share `shared`.
  loop(const server_options& options, std::shared_ptr<handler> h,
       std::shared_ptr<loop_shared> shared);
  loop(const loop&) = delete;
  loop& operator=(const loop&) = delete;
  ~loop();

  // -- setup (starting thread, before run) -----------------------------------

  /// Opens the loop and its own listening socket on `addr`.
  runtime::status open(const sockaddr_storage& addr);

  /// Opens the loop listening on the same socket as `first`.
  runtime::status open_shared(const loop& first);

  /// The port this loop listens on.
  uint16_t port() const;

  /// Closes everything of a loop that was opened but never run.
  void dispose();

  // -- running ---------------------------------------------------------------

  /// Runs the loop until a stop command has closed every handle. Runs on the
  /// loop's own thread.
  void run();

  /// Asks the loop to drain or abort. Thread-safe.
  void command(loop_command c) { queue_->command(c); }

  // -- for connections (loop thread) -----------------------------------------

  uv_loop_t* uv() noexcept { return &uv_; }
  const server_options& options() const noexcept { return options_; }
  runtime::statistics::connection_stats& stats() noexcept { return *shared_->stats; }
  const std::shared_ptr<runtime::statistics::byte_budget>& input_budget() const noexcept {
    return shared_->input;
  }
  char* read_buffer() noexcept { return read_buffer_.data(); }
  size_t read_buffer_size() const noexcept { return read_buffer_.size(); }

  /// Passes a complete request to the handler with a responder for slot
  /// `sequence` of connection `connection_id`.
  void dispatch(request_ptr req, uint64_t connection_id, uint64_t sequence);

  /// Called by a connection once its handles are closed; deletes it.
  void on_connection_closed(uint64_t id);

 private:
  enum class mode : uint8_t { running, draining, aborting };

  static void on_wake(uv_async_t* wake);
  static void on_poll(uv_idle_t* poll);
  static void on_own_answers(uv_idle_t* take);
  static void on_connection(uv_stream_t* server, int status);

  void take_completions();
  void start_polling();
  void stop_polling();

  runtime::status init_loop();
  void apply(loop_command c);
  void close_listener();
  void finish_if_done();

  server_options options_;
  std::shared_ptr<handler> handler_;
  std::shared_ptr<loop_shared> shared_;
  uv_loop_t uv_;
  uv_async_t wake_;
  uv_idle_t poll_;
  uv_idle_t take_;                // takes the answers a handler gave at once
  uv_tcp_t listener_;
  std::shared_ptr<completion_queue> queue_;
  std::unordered_map<uint64_t, std::unique_ptr<connection>> connections_;
  uint64_t next_connection_id_ = 1;
  uint64_t in_flight_ = 0;        // dispatched requests not finally answered
  uint64_t poll_until_ns_ = 0;    // uv_hrtime() at which polling gives up
  mode mode_ = mode::running;
  bool loop_open_ = false;
  bool listener_open_ = false;
  bool wake_open_ = false;
  bool poll_open_ = false;
  bool take_open_ = false;
  bool take_armed_ = false;
  bool polling_ = false;
  std::array<char, 64 * 1024> read_buffer_;
};

} // namespace conch::transports::http
