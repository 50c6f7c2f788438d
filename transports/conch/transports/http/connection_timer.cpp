// The connection policy: what a connection waits for, how long it may wait,
// and what happens when the wait is over. One timer per connection, armed
// for the deadline of whatever the connection waits on at the moment.
#include <algorithm>

#include "conch/transports/http/connection.hpp"
#include "conch/transports/http/loop.hpp"

namespace conch::transports::http {

namespace {

using runtime::statistics::connection_timeout;

// How long a connection that sent its last answer and a FIN waits for the
// client's FIN before closing anyway. Reading (and dropping) input until then
// keeps unread bytes from turning the close into a reset that could destroy
// the answer before the client reads it.
constexpr uint64_t linger_ms = 2000;

uint64_t ms(std::chrono::milliseconds d) {
  return static_cast<uint64_t>(d.count());
}

} // namespace

uint64_t connection::now() const noexcept {
  return uv_now(loop_.uv());
}

void connection::set_stop_deadlines() noexcept {
  const auto& o = loop_.options();
  uint64_t drain = ms(o.policy.drain_timeout);
  uint64_t budget = ms(o.stop_timeout);
  if (budget != 0) {
    // The stop must end within the budget: the drain ends early enough to
    // leave a request cut short at its deadline time for its 503 to be
    // written and the connection closed (the linger, or half the budget).
    uint64_t room = budget - std::min(linger_ms, budget / 2);
    drain = drain == 0 ? room : std::min(drain, room);
    stop_streams_ms_ = now() + room;
  }
  auto t = now();
  stop_drain_ms_ = drain;
  stop_deadline_ms_ = drain == 0 ? 0 : t + drain;
  stop_end_ms_ = budget == 0 ? 0 : t + budget;
}

connection::wait connection::current_wait() const noexcept {
  const auto& o = loop_.options();
  // Each wait runs `timeout` from `since`; while stopping, no wait on the
  // client runs past the drain time, nor any past the end of the stop.
  auto until = [&](wait_kind kind, uint64_t since, uint64_t timeout, bool absolute_at_stop) {
    wait w{kind, timeout == 0 ? 0 : since + timeout, false};
    if (!stopping_)
      return w;
    uint64_t cap = 0;
    if (stop_deadline_ms_ != 0)
      cap = absolute_at_stop ? stop_deadline_ms_ : since + stop_drain_ms_;
    if (stop_end_ms_ != 0 && (cap == 0 || stop_end_ms_ < cap))
      cap = stop_end_ms_;
    if (cap != 0 && (w.deadline == 0 || cap < w.deadline)) {
      w.deadline = cap;
      w.drain = true;
    }
    return w;
  };
  if (closing_)
    return {};
  if (lingering_)
    return until(wait_kind::linger, lingered_ms_, linger_ms, false);
  // Answers the client has not taken: the write timeout, restarted by each
  // write that finishes.
  if (writes_in_flight_ > 0)
    return until(wait_kind::write, written_ms_, ms(o.policy.write_timeout), false);
  if (shutting_down_ || !reading_)
    return {};  // the FIN is on its way, or the server holds the client back
  // Reading a request: the header timeout runs from its first byte, the
  // body timeout from the last read. Reads at a stop end at the drain
  // deadline, however the client trickles.
  if (parser_.in_message() && !no_more_requests_) {
    if (head_open_)
      return until(wait_kind::body, read_ms_, ms(o.policy.body_timeout), true);
    return until(wait_kind::header, message_began_ms_, ms(o.policy.header_timeout), true);
  }
  if (!pipeline_.empty()) {
    // A stream may never end by itself (a model generating until told to
    // stop). It has what the stop's budget leaves, as any request in flight
    // has; then its request is cancelled, so that the model ends it and the
    // protocol writes its last event, and at the end of the stop the
    // connection closes whatever is left.
    if (stopping_ && pipeline_.streaming() && stop_streams_ms_ != 0) {
      if (!streams_cancelled_)
        return wait{wait_kind::stream, stop_streams_ms_, true};
      return wait{wait_kind::stream, stop_end_ms_, true};
    }
    return {};  // the server has the next move; its exit timeout bounds it
  }
  if (!served_)
    return until(wait_kind::header, accepted_ms_, ms(o.policy.header_timeout), true);
  // Idle since the last request or answer: bytes that begin no request (the
  // CRLFs a client may send between requests) do not keep it open.
  return until(wait_kind::keepalive, std::max(served_ms_, written_ms_), ms(o.policy.keepalive_timeout),
               true);
}

void connection::arm_timer() {
  update_gauges();
  if (closing_)
    return;
  auto w = current_wait();
  if (w.kind == wait_kind::none || w.deadline == 0) {
    if (armed_ != wait_kind::none) {
      uv_timer_stop(&timer_);
      armed_ = wait_kind::none;
    }
    return;
  }
  if (w.kind == armed_ && w.deadline == armed_deadline_)
    return;
  armed_ = w.kind;
  armed_deadline_ = w.deadline;
  auto t = now();
  uv_timer_start(&timer_, &on_timer, w.deadline > t ? w.deadline - t : 0, 0);
}

void connection::on_timer(uv_timer_t* timer) {
  auto& self = *static_cast<connection*>(timer->data);
  self.armed_ = wait_kind::none;
  auto w = self.current_wait();
  if (w.kind == wait_kind::none || w.deadline == 0)
    return;
  if (self.now() < w.deadline) {
    self.arm_timer();  // the wait changed since the timer was armed
    return;
  }
  self.on_deadline(w);
}

void connection::on_deadline(const wait& w) {
  auto& stats = loop_.stats();
  auto count = [&](connection_timeout kind) {
    stats.count(w.drain ? connection_timeout::drain : kind);
  };
  switch (w.kind) {
    case wait_kind::none:
      return;
    case wait_kind::linger:
      close_now();
      return;
    case wait_kind::stream:
      if (!streams_cancelled_) {
        streams_cancelled_ = true;
        stats.count(connection_timeout::drain);
        pipeline_.cancel_streams();
        arm_timer();
        return;
      }
      close_now();
      return;
    case wait_kind::write:
      count(connection_timeout::write);
      close_now();  // nothing can be written to a client that does not read
      return;
    case wait_kind::keepalive:
      count(connection_timeout::keepalive);
      close_now();
      return;
    case wait_kind::header:
    case wait_kind::body:
      count(w.kind == wait_kind::header ? connection_timeout::header : connection_timeout::body);
      if (!parser_.in_message()) {
        close_now();  // not a byte of a request: nobody to answer
        return;
      }
      time_out_request(w.drain);
      return;
  }
}

void connection::time_out_request(bool drain) {
  // The request cannot complete: it is answered after the answers before
  // it, and the connection closes after that (the write timeout still
  // bounds a client that does not read).
  no_more_requests_ = true;
  const auto& o = loop_.options();
  std::string message;
  int status = 408;
  if (drain) {
    status = 503;
    message = "the server is stopping";
  } else if (head_open_) {
    message = "the request body stopped arriving for " + std::to_string(o.policy.body_timeout.count())
              + " ms";
  } else {
    message = "the request line and headers did not arrive within "
              + std::to_string(o.policy.header_timeout.count()) + " ms";
  }
  uint64_t seq = head_open_ ? head_seq_ : pipeline_.open(slot_info{nullptr, false, false, false});
  head_open_ = false;
  parser_.abandon();
  pipeline_.respond(seq, refuse(loop_.options().refusal_answer, status, message), true);
  flush();
  update_reading();
  arm_timer();
}

void connection::update_gauges() noexcept {
  auto buffered = static_cast<int64_t>(pipeline_.buffered_bytes() + tcp_.write_queue_size);
  if (closing_)
    buffered = 0;
  if (buffered != reported_response_bytes_) {
    loop_.stats().response_bytes.fetch_add(buffered - reported_response_bytes_,
                                           std::memory_order_relaxed);
    reported_response_bytes_ = buffered;
  }
}

} // namespace conch::transports::http
