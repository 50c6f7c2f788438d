#include "conch/transports/http/connection.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "conch/transports/http/body_decoding.hpp"
#include "conch/transports/http/loop.hpp"
#include "conch/transports/http/server_options.hpp"
#include "conch/transports/http/wire_format.hpp"

namespace conch::transports::http {

namespace {

uv_stream_t* as_stream(uv_tcp_t* tcp) {
  return reinterpret_cast<uv_stream_t*>(tcp);
}

uv_handle_t* as_handle(void* h) {
  return static_cast<uv_handle_t*>(h);
}

} // namespace

/// One uv_write and the bytes it sends, kept alive until its callback.
struct connection::write_request {
  uv_write_t req;
  connection* owner;
  std::vector<out_piece> pieces;
};

connection::connection(loop& owner, uint64_t id)
  : loop_(owner), id_(id),
    parser_(*this, parser_limits{body_limit(owner.options()), owner.options().max_header_size,
                                 owner.input_budget()}) {}

connection::~connection() = default;

int connection::accept(uv_stream_t* server) {
  uv_tcp_init(loop_.uv(), &tcp_);
  tcp_.data = this;
  uv_timer_init(loop_.uv(), &timer_);
  timer_.data = this;
  open_handles_ = 2;
  int rc = uv_accept(server, as_stream(&tcp_));
  if (rc < 0) {
    close_now();
    return rc;
  }
  uv_tcp_nodelay(&tcp_, 1);
  accepted_ms_ = read_ms_ = written_ms_ = now();
  update_reading();
  arm_timer();
  return 0;
}

// -- reading ------------------------------------------------------------------

void connection::on_alloc(uv_handle_t* handle, size_t, uv_buf_t* buf) {
  auto& self = *static_cast<connection*>(handle->data);
  *buf = uv_buf_init(self.loop_.read_buffer(),
                     static_cast<unsigned>(self.loop_.read_buffer_size()));
}

void connection::on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  auto& self = *static_cast<connection*>(stream->data);
  if (nread < 0) {
    // The client went away (or half-closed: treated alike, as the client
    // can no longer be relied on to read the answer).
    self.close_now();
    return;
  }
  if (nread == 0 || self.closing_)
    return;
  self.read_ms_ = self.now();
  if (!self.shutting_down_) {
    self.consume(buf->base, static_cast<size_t>(nread));
    self.update_reading();
  }
  self.arm_timer();
}

void connection::consume(const char* data, size_t size) {
  if (no_more_requests_)
    return;
  size_t used = 0;
  in_feed_ = true;
  auto outcome = parser_.feed(data, size, used);
  in_feed_ = false;
  if (outcome == request_parser::outcome::paused) {
    parser_paused_ = true;
    if (parser_.upgraded())
      no_more_requests_ = true;
    else
      pending_input_.append(data + used, size - used);
  } else if (outcome == request_parser::outcome::failed) {
    answer_parse_error();
  }
  flush();
}

bool connection::below_limits() const noexcept {
  // Whole answers waiting behind an earlier one count as much as bytes the
  // socket has not taken yet: a pipelining client that does not read stops
  // being read from either way.
  // The request being read does not count: its body must still arrive.
  auto unanswered = pipeline_.size() - (head_open_ ? 1 : 0);
  return unanswered < loop_.options().max_pipelined_requests
         && pipeline_.buffered_bytes() + tcp_.write_queue_size < loop_.options().write_high_water;
}

void connection::update_reading() {
  if (closing_ || in_feed_)
    return;
  if (parser_paused_ && !no_more_requests_ && !shutting_down_ && below_limits()) {
    parser_paused_ = false;
    parser_.resume();
    std::string input;
    input.swap(pending_input_);
    if (!input.empty())
      consume(input.data(), input.size());
    if (closing_)
      return;
  }
  // After the last request, input is still read (and dropped) so that a
  // client leaving is noticed and its request cancelled.
  bool want = shutting_down_ || no_more_requests_ || (!parser_paused_ && below_limits());
  if (want && !reading_) {
    if (uv_read_start(as_stream(&tcp_), &on_alloc, &on_read) == 0) {
      reading_ = true;
      // The time the transport held the client back is not the client's:
      // the read deadlines resume where they stood.
      if (paused_ms_ != 0) {
        auto held = now() - paused_ms_;
        message_began_ms_ += held;
        accepted_ms_ += held;
        read_ms_ = now();
        paused_ms_ = 0;
      }
    }
  } else if (!want && reading_) {
    uv_read_stop(as_stream(&tcp_));
    reading_ = false;
    paused_ms_ = now();
  }
}

// -- requests -----------------------------------------------------------------

void connection::on_message_begin() {
  message_began_ms_ = now();
}

void connection::on_request_head(const request_ptr& req, bool expect_continue) {
  slot_info info;
  info.req = req;
  info.keep_alive = req->keep_alive;
  info.http10 = req->version_major == 1 && req->version_minor == 0;
  info.head = req->method == "HEAD";
  head_seq_ = pipeline_.open(std::move(info));
  head_open_ = true;
  if (expect_continue && req->version_minor >= 1)
    pipeline_.interim(head_seq_, std::string{continue_response});
  flush();
}

void connection::on_request(request_ptr req) {
  head_open_ = false;
  served_ = true;
  served_ms_ = now();
  auto seq = head_seq_;
  if (!req->keep_alive)
    no_more_requests_ = true;
  if (stopping_) {
    no_more_requests_ = true;
    pipeline_.respond(seq, refuse(loop_.options().refusal_answer, 503, "the server is stopping"),
                      true);
    return;
  }
  if (auto refusal = decode_request_body(*req, body_limit(loop_.options()),
                                            loop_.input_budget(),
                                            loop_.options().refusal_answer)) {
    bool busy = refusal->status == 503;
    if (busy) {
      loop_.stats().count(runtime::statistics::request_refusal::input_budget);
      no_more_requests_ = true;
    }
    pipeline_.respond(seq, *refusal, busy);
    return;
  }
  loop_.dispatch(std::move(req), id_, seq);
}

bool connection::should_pause() {
  return no_more_requests_ || pipeline_.size() >= loop_.options().max_pipelined_requests;
}

void connection::answer_parse_error() {
  no_more_requests_ = true;
  if (auto why = parser_.refusal())
    loop_.stats().count(*why);
  parser_.abandon();  // its bytes go back to the budget now
  auto answer = refuse(loop_.options().refusal_answer, parser_.error_status(),
                       parser_.error_message(), parser_.refusal());
  uint64_t seq = head_open_ ? head_seq_ : pipeline_.open(slot_info{nullptr, false, false, false});
  head_open_ = false;
  pipeline_.respond(seq, answer, true);
  // Requests pipelined before the bad one still get their answers first.
}

// -- answers ------------------------------------------------------------------

bool connection::close_after(uint64_t seq, const response& resp) const {
  if (resp.headers.has_token("Connection", "close"))
    return true;
  // While stopping, the last answer tells the client the connection ends.
  return stopping_ && pipeline_.is_last(seq) && !parser_.in_message();
}

void connection::complete(completion c) {
  if (closing_)
    return;
  switch (c.kind) {
    case completion_kind::respond:
      pipeline_.respond(c.sequence, c.resp, close_after(c.sequence, c.resp));
      break;
    case completion_kind::stream_begin:
      pipeline_.stream_begin(c.sequence, c.resp, close_after(c.sequence, c.resp));
      break;
    case completion_kind::stream_chunk:
      pipeline_.stream_chunk(c.sequence, std::move(c.chunk));
      if (pipeline_.buffered_bytes() + tcp_.write_queue_size
          > loop_.options().max_stream_backlog) {
        loop_.stats().backlog_closes.fetch_add(1, std::memory_order_relaxed);
        close_now();  // the client does not read: give up on it
        return;
      }
      break;
    case completion_kind::stream_end:
      pipeline_.stream_end(c.sequence);
      break;
    case completion_kind::abandon:
      pipeline_.abandon(c.sequence);
      break;
  }
  flush();
  update_reading();
  arm_timer();
}

void connection::flush() {
  if (closing_ || shutting_down_)
    return;
  auto ready = pipeline_.take();
  if (!ready.pieces.empty())
    write(std::move(ready.pieces));
  if (closing_)
    return;
  if (ready.close || ((stopping_ || no_more_requests_) && idle()))
    close_gracefully();
}

void connection::write(std::vector<out_piece> pieces) {
  auto w = spare_write_ ? std::move(spare_write_) : std::make_unique<write_request>();
  w->pieces = std::move(pieces);
  // uv_write copies the descriptors; the common short list stays on the stack.
  constexpr size_t inline_bufs = 8;
  uv_buf_t small[inline_bufs];
  std::vector<uv_buf_t> large;
  uv_buf_t* bufs = small;
  if (w->pieces.size() > inline_bufs) {
    large.resize(w->pieces.size());
    bufs = large.data();
  }
  for (size_t i = 0; i < w->pieces.size(); ++i) {
    const auto& p = w->pieces[i];
    bufs[i] = uv_buf_init(const_cast<char*>(p.data()), static_cast<unsigned>(p.size()));
  }
  w->req.data = w.get();
  w->owner = this;
  if (writes_in_flight_ == 0)
    written_ms_ = now();  // the write timeout runs from here
  int rc = uv_write(&w->req, as_stream(&tcp_), bufs, static_cast<unsigned>(w->pieces.size()),
                    &on_write);
  if (rc < 0) {
    close_now();
    return;
  }
  ++writes_in_flight_;
  w.release();  // owned by libuv until on_write
}

void connection::on_write(uv_write_t* req, int status) {
  std::unique_ptr<write_request> w{static_cast<write_request*>(req->data)};
  auto& self = *w->owner;
  --self.writes_in_flight_;
  w->pieces.clear();  // the bytes go now; the request is kept for the next write
  if (!self.spare_write_)
    self.spare_write_ = std::move(w);
  if (status < 0) {
    self.close_now();
    return;
  }
  self.written_ms_ = self.now();
  self.update_reading();
  self.arm_timer();
}

// -- closing ------------------------------------------------------------------

void connection::begin_stop() {
  if (!stopping_)
    set_stop_deadlines();
  stopping_ = true;
  if (closing_)
    return;
  if (!shutting_down_) {
    if (idle() && writes_in_flight_ == 0)
      close_now();
    else if (idle())
      close_gracefully();
    else
      update_reading();
  }
  arm_timer();
}

void connection::close_gracefully() {
  if (closing_ || shutting_down_)
    return;
  shutting_down_ = true;
  no_more_requests_ = true;
  // Requests behind a closing answer will never be answered.
  pipeline_.cancel_all();
  // libuv sends the FIN once the queued writes are done.
  if (uv_shutdown(&shutdown_, as_stream(&tcp_), &on_shutdown) < 0) {
    close_now();
    return;
  }
  update_reading();
}

void connection::on_shutdown(uv_shutdown_t* req, int status) {
  auto& self = *static_cast<connection*>(req->handle->data);
  if (self.closing_)
    return;
  if (status < 0) {
    self.close_now();
    return;
  }
  self.lingering_ = true;
  self.lingered_ms_ = self.now();
  self.arm_timer();
}

void connection::close_now() {
  if (closing_)
    return;
  closing_ = true;
  reading_ = false;
  pipeline_.cancel_all();
  uv_close(as_handle(&tcp_), &on_closed);
  if (open_handles_ > 1)
    uv_close(as_handle(&timer_), &on_closed);
}

void connection::on_closed(uv_handle_t* handle) {
  auto& self = *static_cast<connection*>(handle->data);
  if (--self.open_handles_ > 0)
    return;
  auto& stats = self.loop_.stats();
  if (self.counted_)
    stats.open.fetch_sub(1, std::memory_order_relaxed);
  stats.response_bytes.fetch_sub(self.reported_response_bytes_, std::memory_order_relaxed);
  self.loop_.on_connection_closed(self.id_);  // deletes self
}

} // namespace conch::transports::http
