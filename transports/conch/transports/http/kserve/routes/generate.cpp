#include <memory>
#include <optional>
#include <string>

#include "conch/runtime/validation/validate_request.hpp"
#include "conch/transports/http/kserve/call_trace.hpp"
#include "conch/transports/http/kserve/codec/encode_error.hpp"
#include "conch/transports/http/kserve/generate/decode_generate_request.hpp"
#include "conch/transports/http/kserve/generate/encode_generate_response.hpp"
#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

namespace {

// True for a response that carries something: every non-final one, and a
// final one with outputs or parameters (a decoupled model's last response
// may be empty, a flag only).
bool counts(const runtime::inference_response& r) {
  return !r.final || !r.outputs.empty() || !r.parameters.empty();
}

// /generate: exactly one response, answered as one JSON object.
struct pending_generate {
  responder res;
  admission::ticket ticket;
  runtime::request_trace_ptr trace;
  std::optional<std::string> body;  // the one response, encoded
  int responses = 0;
  bool done = false;

  void answer(response resp) {
    res.send(std::move(resp));
    ticket.reset();
    done = true;
    stamp_send_end(trace);
  }

  void on_response(runtime::inference_response&& r) {
    hold_trace(trace, r);
    if (done)
      return;
    if (r.final || !r.error.is_ok())
      stamp_send_start(trace);
    if (!r.error.is_ok()) {
      answer(codec::encode_error(r.error));
      return;
    }
    if (counts(r) && ++responses == 1) {
      auto json = encode_generate_response(r);
      if (!json) {
        answer(codec::encode_error(json.error()));
        return;
      }
      body = std::move(*json);
    }
    if (responses > 1 || (r.final && responses == 0)) {
      answer(codec::encode_error(runtime::internal_error(
        "generate expects model to produce exactly 1 response, use generate stream for model "
        "that generates various number of responses")));
      return;
    }
    if (r.final)
      answer(json_reply(std::move(*body)));
  }
};

// /generate_stream: each response as a server-sent event, errors too
// (data: {"error":"..."}), as Triton streams them. The status is the first
// response's: 200, or the error's when the model's first answer is one.
// (A request refused before it reaches the model gets a plain JSON error.)
struct pending_stream {
  responder res;
  admission::ticket ticket;
  runtime::request_trace_ptr trace;
  bool started = false;
  bool done = false;

  void start(int status = 200) {
    if (started)
      return;
    response head{status};
    head.headers.set("Content-Type", "text/event-stream; charset=utf-8");
    res.begin_stream(std::move(head));
    started = true;
  }

  void finish() {
    start();
    res.end_stream();
    ticket.reset();
    done = true;
    stamp_send_end(trace);
  }

  void fail(const runtime::status& error) {
    stamp_send_start(trace);
    start(codec::encode_error(error).status);
    res.write("data: " + generate_error_json(error.message()) + "\n\n");
    finish();
  }

  void on_response(runtime::inference_response&& r) {
    hold_trace(trace, r);
    if (done)
      return;
    if (!r.error.is_ok()) {
      fail(r.error);
      return;
    }
    if (counts(r)) {
      auto json = encode_generate_response(r);
      if (!json) {
        fail(json.error());
        return;
      }
      start();
      if (r.final)
        stamp_send_start(trace);
      res.write("data: " + *json + "\n\n");
    } else if (r.final) {
      stamp_send_start(trace);
    }
    if (r.final)
      finish();
  }
};

// A request both endpoints checked and decoded, with the version it
// resolved to.
struct prepared_generate {
  runtime::inference_request request;
  runtime::resolved_model_ptr model;
};

// What both endpoints check and decode before submitting.
runtime::result<prepared_generate> prepare(const route_call& call) {
  const auto* coding = call.req->headers.find("Content-Encoding");
  if (coding != nullptr && !coding->empty() && *coding != "identity")
    return runtime::invalid_argument("generate does not support compressed requests");
  auto& server = *call.settings.server;
  auto model = server.resolve(call.target.model, call.target.version);
  if (!model)
    return model.error();
  const auto& config = *(*model)->config;
  auto request = decode_generate_request(*call.req, config, call.target.model, call.target.version);
  if (!request)
    return request.error();
  // Checked here too, so that a request the model would never get is a
  // plain error reply, as Triton refuses it before any response; the
  // stream's status and events are the model's.
  CONCH_RUNTIME_RETURN_IF_ERROR(runtime::validation::validate_request(*request, config));
  return prepared_generate{std::move(*request), std::move(*model)};
}

template <class Pending>
void submit(route_call& call, prepared_generate prepared, std::shared_ptr<Pending> pending,
            runtime::trace_origin origin) {
  auto cancel = call.settings.server->submit(
    std::move(prepared.request),
    [pending](runtime::inference_response&& r) { pending->on_response(std::move(r)); },
    {runtime::submitter::frontend, runtime::placement::queued, std::move(origin),
     std::move(prepared.model)});
  call.req->on_cancel([cancel = std::move(cancel)] {
    if (cancel)
      cancel();
  });
}

} // namespace

void serve_generate(route_call&& call) {
  auto origin = trace_origin_of(call);
  auto prepared = prepare(call);
  if (!prepared) {
    call.res.send(codec::encode_error(prepared.error()));
    return;
  }
  auto pending = std::make_shared<pending_generate>();
  pending->res = std::move(call.res);
  pending->ticket = std::move(call.ticket);
  submit(call, std::move(*prepared), std::move(pending), std::move(origin));
}

void serve_generate_stream(route_call&& call) {
  auto origin = trace_origin_of(call);
  auto prepared = prepare(call);
  if (!prepared) {
    call.res.send(codec::encode_error(prepared.error()));
    return;
  }
  auto pending = std::make_shared<pending_stream>();
  pending->res = std::move(call.res);
  pending->ticket = std::move(call.ticket);
  submit(call, std::move(*prepared), std::move(pending), std::move(origin));
}

} // namespace conch::transports::http::kserve
