#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "conch/runtime/buffer.hpp"
#include "conch/transports/http/response.hpp"

namespace conch::transports::http {

class completion_queue;
enum class completion_kind : uint8_t;

/// The handle through which a handler answers one request, from any thread,
/// once: either `send` a whole response, or `begin_stream`, `write` any number
/// of chunks and `end_stream`. Each call queues a message for the connection's
/// loop and wakes it; the loop writes responses of pipelined requests in
/// request order. Move-only; one thread at a time may use one responder.
/// A responder destroyed before answering answers 500; one destroyed
/// mid-stream ends the connection after what was written, so the client sees
/// a truncated body and nothing ever hangs. Calls after the answer is complete
/// are ignored. If the connection is gone, every call is a no-op.
class responder {
 public:
  // -- constructors ----------------------------------------------------------

  /// A responder that answers nothing (for tests and moved-from objects).
  responder() noexcept = default;

  /// Made by the transport: answers request `sequence` on `connection_id`.
  responder(std::shared_ptr<completion_queue> queue, uint64_t connection_id,
            uint64_t sequence) noexcept;

  responder(responder&& other) noexcept;
  responder& operator=(responder&& other) noexcept;
  responder(const responder&) = delete;
  responder& operator=(const responder&) = delete;
  ~responder();

  // -- answering -------------------------------------------------------------

  /// Answers with `resp`. Thread-safe with respect to the transport.
  void send(response resp);

  /// Starts a streamed answer: `head`'s status and headers, then a chunked
  /// body (for server-sent events, set Content-Type: text/event-stream).
  /// `head.body` is ignored.
  void begin_stream(response head);

  /// Queues `chunk` as the next piece of the stream; empty chunks are skipped.
  void write(runtime::buffer chunk);

  /// Queues a copy of `text` as the next piece of the stream.
  void write(std::string_view text);

  /// Ends the stream.
  void end_stream();

  /// Rewrites every response head this responder sends (`send`, and the
  /// head of `begin_stream`) before it is queued: a frontend that speaks a
  /// dialect of another's routes (SageMaker's content types over KServe's
  /// infer) sets it before it hands the responder on.
  void set_transform(std::function<void(response&)> transform) {
    transform_ = std::move(transform);
  }

  // -- properties ------------------------------------------------------------

  /// True while this responder still owes an answer or a stream end.
  bool pending() const noexcept { return queue_ != nullptr && state_ != state::done; }

  /// True once `begin_stream` was called and `end_stream` was not.
  bool streaming() const noexcept { return state_ == state::streaming; }

 private:
  enum class state : uint8_t { fresh, streaming, done };

  void post(completion_kind kind, response resp, runtime::buffer chunk);
  void release() noexcept;

  std::shared_ptr<completion_queue> queue_;
  uint64_t connection_id_ = 0;
  uint64_t sequence_ = 0;
  state state_ = state::done;
  std::function<void(response&)> transform_;
};

} // namespace conch::transports::http
