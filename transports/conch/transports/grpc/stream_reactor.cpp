#include "conch/transports/grpc/stream_reactor.hpp"

#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "conch/transports/grpc/decode_infer_request.hpp"
#include "conch/transports/grpc/encode_infer_response.hpp"
#include "conch/transports/grpc/grpc_status.hpp"
#include "conch/transports/grpc/model_version.hpp"

namespace conch::transports::grpc {

namespace {

using message = inference::ModelStreamInferResponse;
using message_ptr = std::unique_ptr<message>;

constexpr const char* final_key = "triton_final_response";

// What a response needs to know about the request it answers.
struct request_info {
  uint64_t seq = 0;
  bool decoupled = false;
  bool empty_final = false;
  std::string id;
  std::string model_name;
  std::string model_version;
};

void set_final(inference::ModelInferResponse& r, bool final) {
  (*r.mutable_parameters())[final_key].set_bool_param(final);
}

message_ptr error_message(const request_info& info, const runtime::status& st) {
  auto m = std::make_unique<message>();
  m->set_error_message(st.message().empty() ? st.to_string() : st.message());
  auto* r = m->mutable_infer_response();
  r->set_id(info.id);
  r->set_model_name(info.model_name);
  r->set_model_version(info.model_version);
  set_final(*r, true);
  return m;
}

bool empty_final_requested(const inference::ModelInferRequest& req) {
  auto i = req.parameters().find("triton_enable_empty_final_response");
  return i != req.parameters().end()
         && i->second.parameter_choice_case() == inference::InferParameter::kBoolParam
         && i->second.bool_param();
}

bool grpc_error_requested(const ::grpc::CallbackServerContext* ctx) {
  auto [first, last] = ctx->client_metadata().equal_range("triton_grpc_error");
  for (auto i = first; i != last; ++i)
    if (std::string{i->second.data(), i->second.size()} == "true")
      return true;
  return false;
}

} // namespace

/// The state of one stream that outlives its reactor: the server's
/// callbacks may run after the reactor finished. gRPC operations are
/// started under the mutex (gRPC never runs a reactor's callbacks inline);
/// the server is called outside it, since it may answer at once.
struct stream_call {
  gateway_ptr server;
  std::shared_ptr<inflight_calls> calls;
  stream_reactor* reactor = nullptr;
  uint64_t ticket = 0;
  size_t max_outstanding = 0;
  bool grpc_error = false;
  /// The read buffer; touched only between StartRead and OnReadDone.
  inference::ModelInferRequest request;

  std::mutex mutex;
  // -- guarded by mutex ------------------------------------------------------
  std::map<uint64_t, message_ptr> ordered;  // non-decoupled, null until answered
  std::deque<message_ptr> writes;
  message_ptr writing;
  std::unordered_map<uint64_t, cancel_fn> inflight;
  size_t outstanding = 0;
  uint64_t next_seq = 0;
  bool reading = false;
  bool read_closed = false;
  bool finished = false;
  bool draining = false;  // the server stops: answer what is in flight, then end
  std::optional<::grpc::Status> end_status;

  // Starts what may start now: the next write, the next read, the finish.
  void step() {
    if (finished)
      return;
    if (end_status) {
      if (!writing)
        finish(*end_status);
      return;
    }
    while (!ordered.empty() && ordered.begin()->second) {
      writes.push_back(std::move(ordered.begin()->second));
      ordered.erase(ordered.begin());
    }
    if (!writing && !writes.empty()) {
      writing = std::move(writes.front());
      writes.pop_front();
      reactor->StartWrite(writing.get());
    }
    if (!reading && !read_closed && !draining && outstanding < max_outstanding) {
      reading = true;
      reactor->StartRead(&request);
    }
    bool drained = outstanding == 0 && !writing && writes.empty();
    if (read_closed && drained)
      finish(::grpc::Status::OK);
    else if (draining && drained)
      finish(to_grpc_status(runtime::unavailable("the gRPC server is stopping")));
  }

  void finish(const ::grpc::Status& st) {
    finished = true;
    writes.clear();
    ordered.clear();
    calls->release(ticket);
    reactor->Finish(st);
  }

  // Ends the stream with `st`; returns the cancels of its requests, to be
  // called outside the mutex.
  std::vector<cancel_fn> end(::grpc::Status st) {
    std::vector<cancel_fn> cancels;
    if (end_status || finished)
      return cancels;
    end_status = std::move(st);
    // The entries stay until their final responses, so that a request
    // being submitted now learns that it must be cancelled.
    for (auto& [seq, cancel] : inflight)
      if (cancel)
        cancels.push_back(std::exchange(cancel, nullptr));
    return cancels;
  }

  void queue(const request_info& info, message_ptr m) {
    if (!info.decoupled)
      ordered[info.seq] = std::move(m);
    else
      writes.push_back(std::move(m));
  }

  // Called by the server for each response of one request.
  void on_response(const request_info& info, runtime::inference_response&& r) {
    message_ptr m;
    if (!r.error.is_ok()) {
      if (!grpc_error)
        m = error_message(info, r.error);
    } else if (r.outputs.empty() && r.final && info.decoupled) {
      if (info.empty_final) {
        m = std::make_unique<message>();
        auto* ir = m->mutable_infer_response();
        ir->set_id(info.id);
        ir->set_model_name(info.model_name);
        ir->set_model_version(info.model_version);
        set_final(*ir, true);
      }
    } else {
      m = std::make_unique<message>();
      auto st = encode_infer_response(r, *m->mutable_infer_response());
      if (!st.is_ok()) {
        r.error = st;
        r.final = true;
        m = grpc_error ? nullptr : error_message(info, st);
      } else {
        set_final(*m->mutable_infer_response(), r.final);
      }
    }
    std::vector<cancel_fn> cancels;
    {
      std::lock_guard<std::mutex> guard{mutex};
      if (r.final || !r.error.is_ok()) {
        inflight.erase(info.seq);
        --outstanding;
      }
      if (!r.error.is_ok() && grpc_error)
        cancels = end(to_grpc_status(r.error));
      else if (m)
        queue(info, std::move(m));
      else if (!info.decoupled)
        ordered.erase(info.seq);
      step();
    }
    for (auto& c : cancels)
      c();
  }

  // Takes the request just read: checks it, decodes it and submits it.
  void submit(std::shared_ptr<stream_call> self) {
    request_info info;
    info.id = request.id();
    info.model_name = request.model_name();
    info.model_version = request.model_version();
    info.empty_final = empty_final_requested(request);
    auto prepared = prepare(info);
    {
      std::lock_guard<std::mutex> guard{mutex};
      info.seq = next_seq++;
      ++outstanding;
      if (!info.decoupled)
        ordered.emplace(info.seq, nullptr);
      if (prepared)
        inflight.emplace(info.seq, nullptr);
    }
    if (!prepared) {
      runtime::inference_response r;
      r.error = prepared.error();
      r.final = true;
      on_response(info, std::move(r));
      return;
    }
    auto cancel = server->infer(std::move(*prepared),
                                [self, info](runtime::inference_response&& r) {
                                  self->on_response(info, std::move(r));
                                });
    // A stream that ended while the request was being submitted cancels it.
    bool cancel_now = false;
    {
      std::lock_guard<std::mutex> guard{mutex};
      if (auto i = inflight.find(info.seq); i != inflight.end()) {
        if (end_status)
          cancel_now = true;
        else
          i->second = cancel;
      }
    }
    if (cancel_now && cancel)
      cancel();
  }

  runtime::result<runtime::inference_request> prepare(request_info& info) {
    if (calls->stopping())
      return runtime::unavailable("the gRPC server is stopping");
    auto version = parse_model_version(request.model_version());
    if (!version)
      return version.error();
    auto config = server->model_config(request.model_name(), *version);
    if (!config)
      return config.error();
    info.decoupled = (*config)->model_transaction_policy().decoupled();
    auto decoded = decode_infer_request(request, *version);
    if (!decoded)
      return decoded.error();
    if (!decoded->shared_memory_inputs.empty() || decoded->special_outputs)
      return runtime::unsupported("shared memory and classification are not supported by the "
                                  "gRPC frontend yet");
    return std::move(decoded->request);
  }
};

stream_reactor* stream_reactor::start(::grpc::CallbackServerContext* ctx, gateway_ptr server,
                                      std::shared_ptr<inflight_calls> calls,
                                      size_t max_outstanding) {
  auto* self = new stream_reactor;
  auto call = std::make_shared<stream_call>();
  call->server = std::move(server);
  call->calls = std::move(calls);
  call->reactor = self;
  call->max_outstanding = max_outstanding == 0 ? 1 : max_outstanding;
  call->grpc_error = grpc_error_requested(ctx);
  self->call_ = call;
  auto ticket = call->calls->admit();
  std::lock_guard<std::mutex> guard{call->mutex};
  if (!ticket) {
    call->finished = true;
    self->Finish(to_grpc_status(runtime::unavailable("the gRPC server is stopping")));
    return self;
  }
  call->ticket = *ticket;
  std::weak_ptr<stream_call> weak = call;
  call->calls->set_cancel(*ticket, [weak] {
    auto c = weak.lock();
    if (!c)
      return;
    std::vector<cancel_fn> cancels;
    {
      std::lock_guard<std::mutex> guard{c->mutex};
      cancels = c->end(to_grpc_status(runtime::unavailable("the gRPC server is stopping")));
      c->step();
    }
    for (auto& cancel : cancels)
      cancel();
  });
  call->calls->set_stop(*ticket, [weak] {
    if (auto c = weak.lock()) {
      std::lock_guard<std::mutex> guard{c->mutex};
      c->draining = true;
      c->step();
    }
  });
  // A stop that came between admit and set_stop found no hook to call.
  if (call->calls->stopping())
    call->draining = true;
  call->step();
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
    call_->writing.reset();
    if (!ok)
      cancels = call_->end(::grpc::Status{::grpc::StatusCode::CANCELLED, "the stream broke"});
    call_->step();
  }
  for (auto& c : cancels)
    c();
}

void stream_reactor::OnCancel() {
  std::vector<cancel_fn> cancels;
  {
    std::lock_guard<std::mutex> guard{call_->mutex};
    cancels = call_->end(::grpc::Status{::grpc::StatusCode::CANCELLED, "the stream was cancelled"});
    call_->step();
  }
  for (auto& c : cancels)
    c();
}

void stream_reactor::OnDone() { delete this; }

} // namespace conch::transports::grpc
