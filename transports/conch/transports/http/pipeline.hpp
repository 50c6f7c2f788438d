#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "conch/runtime/buffer.hpp"
#include "conch/transports/http/request.hpp"
#include "conch/transports/http/response.hpp"

namespace conch::transports::http {

/// One piece of output: transport-made text (heads, chunk framing) or body
/// bytes shared with their owner.
struct out_piece {
  std::string text;
  runtime::buffer bytes;

  const char* data() const noexcept {
    return text.empty() ? reinterpret_cast<const char*>(bytes.data()) : text.data();
  }
  size_t size() const noexcept { return text.empty() ? bytes.size() : text.size(); }
};

/// What one request needs known to frame its answer.
struct slot_info {
  request_ptr req;          // null for requests the transport answers itself
  bool keep_alive = true;   // the request allows reuse of the connection
  bool http10 = false;      // answer as HTTP/1.0
  bool head = false;        // HEAD: no body bytes on the wire
};

/// The answers of one connection's requests, kept in request order: output
/// for a request is released only once every earlier answer is complete, so
/// responders may finish in any order. Runs on the loop thread.
class pipeline {
 public:
  /// Output ready to write, in wire order.
  struct ready {
    std::vector<out_piece> pieces;
    /// The answer just released asks the connection to close after it.
    bool close = false;
  };

  // -- slots -----------------------------------------------------------------

  /// Opens a slot for the next request; returns its sequence number.
  uint64_t open(slot_info info);

  /// True when slot `seq` is open and its answer not yet complete.
  bool is_open(uint64_t seq) const noexcept;

  /// True when `seq` is the most recently opened slot.
  bool is_last(uint64_t seq) const noexcept { return seq + 1 == next_seq_; }

  // -- answers ---------------------------------------------------------------

  /// Queues interim output (100 Continue) ahead of slot `seq`'s answer.
  void interim(uint64_t seq, std::string text);

  /// Completes slot `seq` with `resp`; `close` adds Connection: close and
  /// closes the connection after it. Settles the request.
  void respond(uint64_t seq, const response& resp, bool close);

  /// Starts a streamed answer for slot `seq`.
  void stream_begin(uint64_t seq, const response& head, bool close);

  /// Queues a chunk of slot `seq`'s stream.
  void stream_chunk(uint64_t seq, runtime::buffer chunk);

  /// Ends slot `seq`'s stream.
  void stream_end(uint64_t seq);

  /// Ends slot `seq`'s stream abruptly: what was queued goes out, then the
  /// connection closes.
  void abandon(uint64_t seq);

  // -- output ----------------------------------------------------------------

  /// Takes the output that may be written now and drops finished slots.
  ready take();

  /// Cancels the requests of every unanswered slot (the client went away).
  void cancel_all();

  /// True while a streamed answer has begun and not ended.
  bool streaming() const noexcept;

  /// Cancels the requests of the streamed answers that have not ended.
  void cancel_streams();

  /// Open slots, answered or not, whose output is not yet all taken.
  size_t size() const noexcept { return slots_.size(); }
  bool empty() const noexcept { return slots_.empty(); }

  /// Bytes queued in slots and not yet taken.
  size_t buffered_bytes() const noexcept { return buffered_; }

 private:
  struct slot {
    uint64_t seq;
    slot_info info;
    std::vector<out_piece> out;
    bool streaming = false;
    bool finished = false;
    bool close_after = false;
  };

  slot* find(uint64_t seq) noexcept;
  void push(slot& s, out_piece piece);
  void push_text(slot& s, std::string text) { push(s, out_piece{std::move(text), {}}); }

  std::deque<slot> slots_;
  uint64_t next_seq_ = 0;
  size_t buffered_ = 0;
};

} // namespace conch::transports::http
