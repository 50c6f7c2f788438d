#include "conch/transports/http/pipeline.hpp"

#include "conch/transports/http/wire_format.hpp"

namespace conch::transports::http {

uint64_t pipeline::open(slot_info info) {
  slots_.push_back(slot{next_seq_, std::move(info), {}, false, false, false});
  return next_seq_++;
}

pipeline::slot* pipeline::find(uint64_t seq) noexcept {
  if (slots_.empty() || seq < slots_.front().seq)
    return nullptr;
  auto index = seq - slots_.front().seq;
  return index < slots_.size() ? &slots_[index] : nullptr;
}

bool pipeline::is_open(uint64_t seq) const noexcept {
  auto* s = const_cast<pipeline*>(this)->find(seq);
  return s != nullptr && !s->finished;
}

void pipeline::push(slot& s, out_piece piece) {
  buffered_ += piece.size();
  if (s.out.empty())
    s.out.reserve(4);  // a head, a JSON header and an output or two
  s.out.push_back(std::move(piece));
}

void pipeline::interim(uint64_t seq, std::string text) {
  if (auto* s = find(seq); s != nullptr && !s->finished && !s->streaming)
    push_text(*s, std::move(text));
}

void pipeline::respond(uint64_t seq, const response& resp, bool close) {
  auto* s = find(seq);
  if (s == nullptr || s->finished || s->streaming)
    return;
  bool keep_alive = s->info.keep_alive && !close;
  auto size = resp.body_size();
  push_text(*s, encode_head(resp.status, resp.headers, body_framing::content_length, size,
                            keep_alive, s->info.http10));
  if (!s->info.head)
    for (auto& part : resp.body)
      if (!part.empty())
        push(*s, out_piece{{}, part});
  s->finished = true;
  s->close_after = !keep_alive;
  if (s->info.req)
    s->info.req->settle();
}

void pipeline::stream_begin(uint64_t seq, const response& head, bool close) {
  auto* s = find(seq);
  if (s == nullptr || s->finished || s->streaming)
    return;
  // HTTP/1.0 has no chunked coding: the stream ends when the connection does.
  auto framing = s->info.http10 ? body_framing::until_close : body_framing::chunked;
  bool keep_alive = s->info.keep_alive && !close && !s->info.http10;
  push_text(*s, encode_head(head.status, head.headers, framing, 0, keep_alive, s->info.http10));
  s->streaming = true;
  s->close_after = !keep_alive;
}

void pipeline::stream_chunk(uint64_t seq, runtime::buffer chunk) {
  auto* s = find(seq);
  if (s == nullptr || s->finished || !s->streaming || chunk.empty() || s->info.head)
    return;
  if (!s->info.http10)
    push_text(*s, chunk_prefix(chunk.size()));
  push(*s, out_piece{{}, std::move(chunk)});
  if (!s->info.http10)
    push_text(*s, std::string{chunk_suffix});
}

void pipeline::stream_end(uint64_t seq) {
  auto* s = find(seq);
  if (s == nullptr || s->finished || !s->streaming)
    return;
  if (!s->info.http10 && !s->info.head)
    push_text(*s, std::string{last_chunk});
  s->finished = true;
  if (s->info.req)
    s->info.req->settle();
}

void pipeline::abandon(uint64_t seq) {
  auto* s = find(seq);
  if (s == nullptr || s->finished)
    return;
  s->finished = true;
  s->close_after = true;
}

pipeline::ready pipeline::take() {
  ready out;
  while (!slots_.empty()) {
    auto& front = slots_.front();
    for (auto& piece : front.out)
      buffered_ -= piece.size();
    if (out.pieces.empty()) {
      out.pieces.swap(front.out);  // the common case: one answer, no copies
    } else {
      for (auto& piece : front.out)
        out.pieces.push_back(std::move(piece));
      front.out.clear();
    }
    if (!front.finished)
      break;
    if (front.close_after) {
      out.close = true;
      break;  // nothing after a closing answer is ever written
    }
    slots_.pop_front();
  }
  return out;
}

void pipeline::cancel_all() {
  for (auto& s : slots_)
    if (!s.finished && s.info.req)
      s.info.req->cancel();
}

void pipeline::cancel_streams() {
  for (auto& s : slots_)
    if (s.streaming && !s.finished && s.info.req)
      s.info.req->cancel();
}

bool pipeline::streaming() const noexcept {
  for (const auto& s : slots_)
    if (s.streaming && !s.finished)
      return true;
  return false;
}

} // namespace conch::transports::http

