#include "conch/transports/grpc/stream_call.hpp"

#include <utility>

#include "conch/runtime/clock.hpp"
#include "conch/runtime/thread_role.hpp"
#include "conch/transports/grpc/call_trace.hpp"
#include "conch/transports/grpc/grpc_status.hpp"
#include "conch/transports/grpc/prepare_infer.hpp"

namespace conch::transports::grpc {

namespace {

runtime::status stopping() { return runtime::unavailable("the gRPC server is stopping"); }

} // namespace

void stream_call::step() {
  if (finished)
    return;
  if (end_status) {
    if (!writing)
      finish(*end_status);
    return;
  }
  while (!ordered.empty() && ordered.begin()->second) {
    writes.push_back(std::move(ordered.begin()->second));
    spare_ordered.keep(ordered.extract(ordered.begin()));
  }
  if (!writing && !writes.empty()) {
    writing = std::move(writes.front());
    writes.pop_front();
    writing_bytes = static_cast<size_t>(writing->GetCachedSize());
    reactor->StartWrite(writing.get());
  }
  // Past the high water mark of responses waiting for the client, no
  // further request is read: the client must read first.
  if (!reading && !read_closed && !draining && outstanding < max_outstanding
      && pending_bytes < limits->bytes().stream_high_water) {
    reading = true;
    reactor->StartRead(&request);
  }
  bool drained = outstanding == 0 && !writing && writes.empty();
  if (read_closed && drained)
    finish(::grpc::Status::OK);
  else if (draining && drained)
    finish(to_grpc_status(stopping()));
}

void stream_call::step_or_hand_off() {
  // A finished call posts nothing: the finisher may be gone once every call
  // of the server has finished.
  if (finished)
    return;
  if (finishing == nullptr || !runtime::this_thread_runs_models || calls->in_flight() <= 1) {
    step();
    return;
  }
  if (step_posted)
    return;
  std::function<void()> task = [self = shared_from_this()] {
    std::lock_guard<std::mutex> guard{self->mutex};
    self->step_posted = false;
    self->step();
  };
  // The finisher ending (never while this call is unfinished, as things
  // stand): step here, with the mutex this thread holds.
  if (finishing->try_post(task))
    step_posted = true;
  else
    step();
}

void stream_call::written() {
  // A large message is let go of: a stream must not hold the largest
  // response it ever wrote for as long as it stays open.
  if (writing_bytes <= max_spare_bytes)
    spare.give(std::move(writing));
  else
    writing.reset();
  forget_bytes(writing_bytes);
  writing_bytes = 0;
}

void stream_call::forget_bytes(size_t n) {
  pending_bytes -= n;
  limits->stats()->response_bytes.fetch_sub(static_cast<int64_t>(n), std::memory_order_relaxed);
}

void stream_call::finish(const ::grpc::Status& st) {
  finished = true;
  writes.clear();
  ordered.clear();
  forget_bytes(pending_bytes - writing_bytes);
  calls->release(ticket);
  reactor->Finish(st);
}

std::vector<cancel_fn> stream_call::end(::grpc::Status st) {
  std::vector<cancel_fn> cancels;
  if (end_status || finished)
    return cancels;
  end_status = std::move(st);
  // Nothing queued will be written now; only the write in progress stays.
  writes.clear();
  for (auto& [seq, m] : ordered)
    m.reset();
  forget_bytes(pending_bytes - writing_bytes);
  // The entries stay until their final responses, so that a request being
  // submitted now learns that it must be cancelled.
  for (auto& [seq, p] : inflight)
    if (p.cancel)
      cancels.push_back(std::exchange(p.cancel, nullptr));
  return cancels;
}

bool stream_call::queue(const stream_request_info& info, stream_message_ptr m) {
  auto size = m->ByteSizeLong();  // cached for the write
  pending_bytes += size;
  limits->stats()->response_bytes.fetch_add(static_cast<int64_t>(size), std::memory_order_relaxed);
  if (!info.decoupled) {
    ordered[info.seq] = std::move(m);
    return false;  // waits for an earlier answer: not the client's doing
  }
  writes.push_back(std::move(m));
  // Bytes the client could take but has not, behind a write it has not
  // finished taking: a single message of any size always goes.
  return writing != nullptr && pending_bytes > limits->bytes().max_stream_backlog;
}

void stream_call::on_response(const stream_request_info& info, runtime::inference_response&& r) {
  bool was_final = r.final;
  // The request's trace, when the server sampled one, comes with its final
  // response.
  auto trace = std::move(r.trace);
  if (trace) {
    auto now = runtime::now_ns();
    trace->stamp("INFER_RESPONSE_COMPLETE", now);
    trace->stamp("GRPC_SEND_START", now);
  }
  stream_message_ptr m;
  if (!r.error.is_ok()) {
    if (!grpc_error)
      m = stream_error(info, r.error);
  } else if (r.outputs.empty() && r.final && info.decoupled) {
    if (info.empty_final)
      m = stream_empty_final(info);
  } else if (auto encoded = stream_response(info, r, spare.take())) {
    m = std::move(*encoded);
  } else {
    r.error = encoded.error();
    r.final = true;
    m = grpc_error ? nullptr : stream_error(info, r.error);
  }
  std::vector<cancel_fn> cancels;
  pending done;  // its cancel function is let go of outside the mutex
  {
    std::lock_guard<std::mutex> guard{mutex};
    auto i = inflight.find(info.seq);
    if (i == inflight.end())
      return;  // answered already: a response failed to encode
    if (r.final) {
      done = std::move(i->second);
      // Its bytes leave the budget before its answer can reach the client,
      // so a client that has its answer never sees them still counted.
      done.admitted.reset();
      spare_inflight.keep(inflight.extract(i));
      --outstanding;
      // A response that failed to encode ends its request early.
      if (!was_final && done.cancel)
        cancels.push_back(done.cancel);
    }
    if (!r.error.is_ok() && grpc_error) {
      auto more = end(to_grpc_status(r.error));
      cancels.insert(cancels.end(), more.begin(), more.end());
    } else if (m && end_status) {
      // The stream is ending: nobody will read this.
      if (!info.decoupled)
        spare_ordered.keep(ordered.extract(info.seq));
    } else if (m) {
      if (queue(info, std::move(m))) {
        // The client does not read: give up on the stream rather than
        // hold its responses without bound.
        auto more = end(::grpc::Status{
          ::grpc::StatusCode::RESOURCE_EXHAUSTED,
          "the client does not read its responses: more than "
            + std::to_string(limits->bytes().max_stream_backlog) + " bytes are waiting"});
        cancels.insert(cancels.end(), more.begin(), more.end());
        limits->stats()->backlog_closes.fetch_add(1, std::memory_order_relaxed);
      }
    } else if (!info.decoupled) {
      spare_ordered.keep(ordered.extract(info.seq));
    }
    step_or_hand_off();
  }
  // The response is queued for the stream (Triton stamps its send end
  // once the write is started, too).
  if (trace)
    trace->stamp("GRPC_SEND_END", runtime::now_ns());
  for (auto& c : cancels)
    c();
}

void stream_call::submit(const std::shared_ptr<stream_call>& self) {
  stream_request_info info;
  info.id = request.id();
  info.model_name = request.model_name();
  info.model_version = request.model_version();
  info.empty_final = empty_final_requested(request);
  auto policy = runtime::frontend_request;
  policy.trace = trace_origin_of(trace_context);
  protocol::admission::ticket admitted;
  auto prepared = [&]() -> runtime::result<prepared_infer> {
    if (calls->stopping())
      return stopping();
    auto t = limits->admit(request.ByteSizeLong());
    if (!t)
      return t.error();
    admitted = std::move(*t);
    CONCH_RUNTIME_RETURN_IF_ERROR(forwarded.apply(request));
    return prepare_infer(*server, request, true, limits->client_shm());
  }();
  if (prepared) {
    info.decoupled = prepared->decoupled;
    info.encoding = std::move(prepared->encoding);
  }
  {
    std::lock_guard<std::mutex> guard{mutex};
    info.seq = next_seq++;
    ++outstanding;
    if (!info.decoupled)
      spare_ordered.insert(ordered, info.seq, nullptr);
    spare_inflight.insert(inflight, info.seq, pending{nullptr, std::move(admitted)});
  }
  if (!prepared) {
    runtime::inference_response r;
    r.error = prepared.error();
    r.final = true;
    on_response(info, std::move(r));
    return;
  }
  // A small request to an idle instance may be answered before this returns
  // (reading is still set, so the answer starts no read).
  policy.model = std::move(prepared->model);
  auto cancel = server->submit(
    std::move(prepared->request),
    [self, info](runtime::inference_response&& r) { self->on_response(info, std::move(r)); },
    std::move(policy));
  // A stream that ended while the request was being submitted cancels it.
  bool cancel_now = false;
  {
    std::lock_guard<std::mutex> guard{mutex};
    if (auto i = inflight.find(info.seq); i != inflight.end()) {
      if (end_status)
        cancel_now = true;
      else
        i->second.cancel = cancel;
    }
  }
  if (cancel_now && cancel)
    cancel();
}

} // namespace conch::transports::grpc
