#include "conch/transports/http/responder.hpp"

#include "conch/transports/http/completion_queue.hpp"

namespace conch::transports::http {

responder::responder(std::shared_ptr<completion_queue> queue, uint64_t connection_id,
                     uint64_t sequence) noexcept
  : queue_(std::move(queue)), connection_id_(connection_id), sequence_(sequence),
    state_(state::fresh) {}

responder::responder(responder&& other) noexcept
  : queue_(std::move(other.queue_)), connection_id_(other.connection_id_),
    sequence_(other.sequence_), state_(other.state_), transform_(std::move(other.transform_)) {
  other.state_ = state::done;
}

responder& responder::operator=(responder&& other) noexcept {
  if (this != &other) {
    release();
    queue_ = std::move(other.queue_);
    connection_id_ = other.connection_id_;
    sequence_ = other.sequence_;
    state_ = other.state_;
    transform_ = std::move(other.transform_);
    other.state_ = state::done;
  }
  return *this;
}

responder::~responder() {
  release();
}

void responder::release() noexcept {
  if (queue_ == nullptr)
    return;
  // Nothing may hang: an unanswered request gets a 500, a cut stream a close.
  if (state_ == state::fresh)
    send(response::error(500, "the request was dropped without a response"));
  else if (state_ == state::streaming)
    post(completion_kind::abandon, {}, {});
  state_ = state::done;
  queue_.reset();
}

void responder::post(completion_kind kind, response resp, runtime::buffer chunk) {
  completion c;
  c.connection_id = connection_id_;
  c.sequence = sequence_;
  c.kind = kind;
  c.resp = std::move(resp);
  c.chunk = std::move(chunk);
  queue_->push(std::move(c));
}

void responder::send(response resp) {
  if (queue_ == nullptr || state_ != state::fresh)
    return;
  state_ = state::done;
  if (transform_)
    transform_(resp);
  post(completion_kind::respond, std::move(resp), {});
}

void responder::begin_stream(response head) {
  if (queue_ == nullptr || state_ != state::fresh)
    return;
  state_ = state::streaming;
  head.body.clear();
  if (transform_)
    transform_(head);
  post(completion_kind::stream_begin, std::move(head), {});
}

void responder::write(runtime::buffer chunk) {
  if (queue_ == nullptr || state_ != state::streaming || chunk.empty())
    return;
  post(completion_kind::stream_chunk, {}, std::move(chunk));
}

void responder::write(std::string_view text) {
  if (!text.empty())
    write(runtime::buffer::copy_of(text.data(), text.size()));
}

void responder::end_stream() {
  if (queue_ == nullptr || state_ != state::streaming)
    return;
  state_ = state::done;
  post(completion_kind::stream_end, {}, {});
}

} // namespace conch::transports::http
