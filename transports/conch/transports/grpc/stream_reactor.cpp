#include "conch/transports/grpc/stream_reactor.hpp"

#include <mutex>
#include <utility>
#include <vector>

#include "conch/transports/grpc/call_trace.hpp"
#include "conch/transports/grpc/grpc_status.hpp"
#include "conch/transports/grpc/stream_call.hpp"

namespace conch::transports::grpc {

namespace {

::grpc::Status stopping() {
  return to_grpc_status(runtime::unavailable("the gRPC server is stopping"));
}

// Ends the stream of `call` with `st` and cancels its requests.
void end_stream(stream_call& call, ::grpc::Status st) {
  std::vector<cancel_fn> cancels;
  {
    std::lock_guard<std::mutex> guard{call.mutex};
    cancels = call.end(std::move(st));
    call.step();
  }
  for (auto& cancel : cancels)
    cancel();
}

// Tells the inflight calls how to stop and cancel the stream of `call`.
void register_hooks(const std::shared_ptr<stream_call>& call) {
  std::weak_ptr<stream_call> weak = call;
  call->calls->set_cancel(call->ticket, [weak] {
    if (auto c = weak.lock())
      end_stream(*c, stopping());
  });
  call->calls->set_stop(call->ticket, [weak] {
    if (auto c = weak.lock()) {
      std::lock_guard<std::mutex> guard{c->mutex};
      c->draining = true;
      c->step();
    }
  });
}

} // namespace

stream_reactor* stream_reactor::start(::grpc::CallbackServerContext* ctx, gateway_ptr server,
                                      std::shared_ptr<inflight_calls> calls,
                                      stream_settings settings) {
  auto* self = new stream_reactor;
  auto call = std::make_shared<stream_call>();
  call->server = std::move(server);
  call->calls = std::move(calls);
  call->limits = settings.limits ? std::move(settings.limits)
                                 : std::make_shared<const call_limits>();
  call->reactor = self;
  call->max_outstanding = settings.max_outstanding == 0 ? 1 : settings.max_outstanding;
  call->grpc_error = grpc_error_requested(*ctx);
  call->forwarded = std::move(settings.forwarded);
  // Read once per stream, also while nothing traces: tracing may be turned
  // on while the stream lasts.
  call->trace_context = trace_context_of(*ctx);
  call->finishing = settings.finishing;
  self->call_ = call;
  auto ticket = call->calls->admit();
  std::lock_guard<std::mutex> guard{call->mutex};
  if (!ticket) {
    call->finished = true;
    self->Finish(stopping());
    return self;
  }
  call->ticket = *ticket;
  register_hooks(call);
  // A stop that came between admit and set_stop found no hook to call.
  if (call->calls->stopping())
    call->draining = true;
  call->step();
  return self;
}

stream_reactor* stream_reactor::refuse(const runtime::status& st) {
  auto* self = new stream_reactor;
  self->call_ = std::make_shared<stream_call>();
  self->call_->finished = true;
  self->Finish(to_grpc_status(st));
  return self;
}

void stream_reactor::OnReadDone(bool ok) {
  if (!ok) {
    std::lock_guard<std::mutex> guard{call_->mutex};
    call_->reading = false;
    call_->read_closed = true;
    call_->step();
    return;
  }
  call_->submit(call_);
  std::lock_guard<std::mutex> guard{call_->mutex};
  call_->reading = false;
  call_->step();
}

void stream_reactor::OnWriteDone(bool ok) {
  std::vector<cancel_fn> cancels;
  {
    std::lock_guard<std::mutex> guard{call_->mutex};
    call_->written();
    if (!ok)
      cancels = call_->end(::grpc::Status{::grpc::StatusCode::CANCELLED, "the stream broke"});
    call_->step();
  }
  for (auto& c : cancels)
    c();
}

void stream_reactor::OnCancel() {
  end_stream(*call_, ::grpc::Status{::grpc::StatusCode::CANCELLED, "the stream was cancelled"});
}

void stream_reactor::OnDone() { delete this; }

} // namespace conch::transports::grpc
