#pragma once

#include <cstdint>

#include "conch/runtime/buffer.hpp"
#include "conch/transports/http/response.hpp"

namespace conch::transports::http {

/// What a responder asks its connection to do.
enum class completion_kind : uint8_t {
  /// Write `resp` as the whole answer.
  respond,
  /// Write `resp`'s status and headers and start a chunked body.
  stream_begin,
  /// Write `chunk` as the next piece of the streamed body.
  stream_chunk,
  /// End the streamed body.
  stream_end,
  /// The responder went away mid-stream: flush what was written, then close.
  abandon,
};

/// One message from a responder (any thread) to the loop that owns the
/// connection, naming the connection and the request's place in its pipeline.
struct completion {
  uint64_t connection_id = 0;
  uint64_t sequence = 0;
  completion_kind kind = completion_kind::respond;
  response resp;
  runtime::buffer chunk;
};

} // namespace conch::transports::http
