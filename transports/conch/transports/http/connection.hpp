#pragma once

#include <cstdint>
#include <string>

#include <uv.h>

#include "conch/transports/http/completion.hpp"
#include "conch/transports/http/pipeline.hpp"
#include "conch/transports/http/request_parser.hpp"

namespace conch::transports::http {

class loop;

/// One accepted TCP connection: reads and parses requests, hands them to the
/// loop's handler, and writes the answers in request order. Lives on its
/// loop's thread and is owned by the loop, which deletes it once its handles
/// are closed. Owns the socket.
class connection final : private parser_events {
 public:
  connection(loop& owner, uint64_t id);
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;
  ~connection() override;

  /// Accepts the next connection from `server` and starts reading. Returns
  /// a libuv error code; on error the connection is closing already.
  int accept(uv_stream_t* server);

  /// Applies a responder's message.
  void complete(completion c);

  /// Drain: no new requests; close once nothing is in flight.
  void begin_stop();

  /// Closes at once; unanswered requests are cancelled.
  void close_now();

  /// Marks the connection counted in the loop's open connections, to be
  /// uncounted when it closes.
  void counted() noexcept { counted_ = true; }

 private:
  struct write_request;

  // -- parser events ---------------------------------------------------------

  void on_message_begin() override;
  void on_request_head(const request_ptr& req, bool expect_continue) override;
  void on_request(request_ptr req) override;
  bool should_pause() override;

  // -- libuv callbacks -------------------------------------------------------

  static void on_alloc(uv_handle_t* handle, size_t suggested, uv_buf_t* buf);
  static void on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);
  static void on_write(uv_write_t* req, int status);
  static void on_shutdown(uv_shutdown_t* req, int status);
  static void on_timer(uv_timer_t* timer);
  static void on_closed(uv_handle_t* handle);

  // -- steps -----------------------------------------------------------------

  void consume(const char* data, size_t size);
  void answer_parse_error();
  void flush();
  void write(std::vector<out_piece> pieces);
  void close_gracefully();
  void update_reading();
  bool below_limits() const noexcept;
  bool idle() const noexcept { return pipeline_.empty() && !parser_.in_message(); }
  bool close_after(uint64_t seq, const response& resp) const;

  // -- the connection policy (connection_timer.cpp) --------------------------

  /// What the connection waits for, and until when (uv_now milliseconds).
  enum class wait_kind : uint8_t { none, header, body, keepalive, write, linger, stream };
  struct wait {
    wait_kind kind = wait_kind::none;
    uint64_t deadline = 0;
    bool drain = false;  // the stop's drain deadline is the one that binds
  };

  wait current_wait() const noexcept;
  void set_stop_deadlines() noexcept;
  void arm_timer();
  void on_deadline(const wait& w);
  void time_out_request(bool drain);
  void update_gauges() noexcept;
  uint64_t now() const noexcept;

  loop& loop_;
  uint64_t id_;
  uv_tcp_t tcp_;
  uv_timer_t timer_;              // the connection policy's deadlines
  uv_shutdown_t shutdown_;
  request_parser parser_;
  pipeline pipeline_;
  std::string pending_input_;     // read while the parser was paused
  uint64_t head_seq_ = 0;         // slot of the request being read
  bool head_open_ = false;        // its head was read, its body not yet
  int open_handles_ = 0;
  int writes_in_flight_ = 0;
  std::unique_ptr<write_request> spare_write_;  // the last finished one, for reuse
  bool reading_ = false;
  bool parser_paused_ = false;
  bool no_more_requests_ = false; // Connection: close, parse error, upgrade
  bool stopping_ = false;
  bool shutting_down_ = false;    // FIN queued; input is discarded
  bool closing_ = false;
  bool in_feed_ = false;
  bool counted_ = false;          // in the loop's open connections
  bool served_ = false;           // a request was read: idle means keep-alive
  bool lingering_ = false;        // FIN sent; waiting for the client's
  wait_kind armed_ = wait_kind::none;
  uint64_t armed_deadline_ = 0;
  uint64_t accepted_ms_ = 0;
  uint64_t message_began_ms_ = 0; // first byte of the request being read
  uint64_t read_ms_ = 0;          // last read
  uint64_t served_ms_ = 0;        // last request read whole
  uint64_t written_ms_ = 0;       // last write finished (or first started)
  uint64_t lingered_ms_ = 0;
  uint64_t paused_ms_ = 0;        // reading stopped by backpressure, since
  uint64_t stop_deadline_ms_ = 0; // set by begin_stop: reads end here
  uint64_t stop_drain_ms_ = 0;    // the drain time each wait on the client gets
  uint64_t stop_end_ms_ = 0;      // no wait on the client runs past it
  uint64_t stop_streams_ms_ = 0;  // open streams' requests are cancelled then
  bool streams_cancelled_ = false; // a stop ended the streams' requests
  int64_t reported_response_bytes_ = 0;
};

} // namespace conch::transports::http
