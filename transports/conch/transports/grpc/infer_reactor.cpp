#include "conch/transports/grpc/infer_reactor.hpp"

#include <atomic>
#include <memory>
#include <mutex>

#include "conch/runtime/clock.hpp"
#include "conch/runtime/thread_role.hpp"
#include "conch/transports/grpc/encode_infer_response.hpp"
#include "conch/transports/grpc/grpc_status.hpp"
#include "conch/transports/grpc/prepare_infer.hpp"

namespace conch::transports::grpc {

namespace {

// True on a gRPC thread while it submits a request: a response that comes
// meanwhile (a model run on the lane) finishes the call right there.
thread_local bool submitting = false;

struct submitting_scope {
  submitting_scope() noexcept { submitting = true; }
  ~submitting_scope() { submitting = false; }
  submitting_scope(const submitting_scope&) = delete;
  submitting_scope& operator=(const submitting_scope&) = delete;
};

} // namespace

/// The state of one call that outlives its reactor: the server's callback
/// may run after the reactor finished.
struct infer_call : std::enable_shared_from_this<infer_call> {
  std::shared_ptr<inflight_calls> calls;
  uint64_t ticket = 0;
  ::grpc::ServerUnaryReactor* reactor = nullptr;
  inference::ModelInferResponse* response = nullptr;
  std::atomic<bool> finished{false};
  std::mutex mutex;
  cancel_fn cancel;  // guarded by mutex
  bool has_output = false;
  /// How the outputs go back; set before the request is submitted.
  response_encoding encoding;
  /// Counts the call against max_inflight until it finishes.
  protocol::admission::ticket admitted;
  /// Finishes the calls answered on a model's thread.
  finisher* finishing = nullptr;
  /// The request's trace when the server sampled one (it comes with the
  /// final response); let go once the call finished.
  runtime::request_trace_ptr trace;

  // Finishes the call once; later calls do nothing.
  void finish(const runtime::status& st) {
    if (finished.exchange(true))
      return;
    calls->release(ticket);
    admitted.reset();
    {
      // The cancel function may hold the server's callback, which holds
      // this call: drop it to break the cycle.
      std::lock_guard<std::mutex> guard{mutex};
      cancel = nullptr;
    }
    // Answered on a model's worker (a python model's) while other calls
    // wait: the write that Finish starts runs on the finisher, so the
    // worker goes on to the next request at once. Alone, the call is
    // finished here, which saves the finisher's wake-up; so is one answered
    // on a gRPC or actor thread.
    // Nothing of the call is touched once Finish is called: the reactor may
    // end (OnDone, inline) before it returns.
    auto sent = std::move(trace);
    if (submitting || !runtime::this_thread_runs_models || calls->in_flight() == 0)
      reactor->Finish(to_grpc_status(st));
    else
      finishing->post([self = shared_from_this(), st = to_grpc_status(st)] {
        self->reactor->Finish(st);
      });
    if (sent)
      sent->stamp("GRPC_SEND_END", runtime::now_ns());
  }

  // Called by the server for each response of the request, never
  // concurrently, the last one final.
  void on_response(runtime::inference_response&& r) {
    if (r.trace)
      trace = std::move(r.trace);
    if (trace && r.final) {
      auto now = runtime::now_ns();
      trace->stamp("INFER_RESPONSE_COMPLETE", now);
      trace->stamp("GRPC_SEND_START", now);
    }
    if (!r.error.is_ok()) {
      finish(r.error);
      return;
    }
    if (!r.outputs.empty() || !has_output) {
      response->Clear();
      auto st = encode_infer_response(r, encoding, *response);
      if (!st.is_ok()) {
        finish(st);
        return;
      }
      has_output = !r.outputs.empty();
    }
    if (r.final)
      finish(runtime::status::ok());
  }
};

infer_reactor* infer_reactor::start(gateway& server, std::shared_ptr<inflight_calls> calls,
                                    finisher& finishing, const call_limits& limits,
                                    const inference::ModelInferRequest& request,
                                    inference::ModelInferResponse& response,
                                    runtime::trace_origin origin) {
  submitting_scope scope;
  auto* self = new infer_reactor;
  auto call = std::make_shared<infer_call>();
  call->calls = std::move(calls);
  call->reactor = self;
  call->response = &response;
  call->finishing = &finishing;
  self->call_ = call;
  auto ticket = call->calls->admit_unary();
  if (!ticket) {
    self->Finish(to_grpc_status(runtime::unavailable("the gRPC server is stopping")));
    call->finished = true;
    return self;
  }
  call->ticket = *ticket;
  auto admitted = limits.admit(request.ByteSizeLong());
  if (!admitted) {
    call->finish(admitted.error());
    return self;
  }
  call->admitted = std::move(*admitted);
  // The request message is this call's own and gRPC reads it no more, so
  // its raw contents may move into the request's tensors.
  auto prepared
    = prepare_infer(server, const_cast<inference::ModelInferRequest&>(request), false,
                    limits.client_shm());
  if (!prepared) {
    call->finish(prepared.error());
    return self;
  }
  call->encoding = std::move(prepared->encoding);
  // A small request to an idle instance may be answered before this returns.
  auto policy = runtime::frontend_request;
  policy.trace = std::move(origin);
  policy.model = std::move(prepared->model);
  auto cancel = server.submit(
    std::move(prepared->request),
    [call](runtime::inference_response&& r) { call->on_response(std::move(r)); },
    std::move(policy));
  call->calls->set_cancel(call->ticket, cancel);
  std::lock_guard<std::mutex> guard{call->mutex};
  if (!call->finished)
    call->cancel = std::move(cancel);
  return self;
}

void infer_reactor::OnCancel() {
  cancel_fn cancel;
  {
    std::lock_guard<std::mutex> guard{call_->mutex};
    cancel = call_->cancel;
  }
  if (cancel)
    cancel();
}

void infer_reactor::OnDone() { delete this; }

} // namespace conch::transports::grpc
