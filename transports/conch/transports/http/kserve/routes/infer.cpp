#include <memory>
#include <optional>


#include "conch/transports/http/compression.hpp"
#include "conch/transports/http/kserve/call_trace.hpp"
#include "conch/transports/http/kserve/codec/decode_infer_request.hpp"
#include "conch/transports/http/kserve/codec/encode_error.hpp"
#include "conch/transports/http/kserve/codec/encode_infer_response.hpp"
#include "conch/transports/http/kserve/header_forwarding.hpp"
#include "conch/transports/http/kserve/raw_binary_input.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"
#include "conch/transports/http/kserve/shared_memory_io.hpp"

namespace conch::transports::http::kserve {

namespace {

// What one inference keeps until its answer is sent. The callbacks of the
// server share it; they never run concurrently for one request.
struct pending_infer {
  codec::decoded_infer how;
  responder res;
  admission::ticket ticket;
  // Weak: the request holds the cancel hook, which holds the job, which
  // holds this.
  std::weak_ptr<request> req;
  std::optional<runtime::inference_response> early;  // a non-final response
  // The shared-memory outputs' regions; null when there are none.
  std::shared_ptr<runtime::shm::output_regions> shm_outputs;
  // The request's trace when the server sampled one (it comes with the
  // final response); let go once the answer is sent.
  runtime::request_trace_ptr trace;

  void answer(response resp) {
    if (auto r = req.lock())
      compress_for(*r, resp);
    res.send(std::move(resp));
    ticket.reset();
    stamp_send_end(trace);
  }

  void on_response(runtime::inference_response&& r) {
    hold_trace(trace, r);
    if (r.final)
      stamp_send_start(trace);
    if (!r.error.is_ok()) {
      answer(codec::encode_error(r.error));
      return;
    }
    if (!r.final) {
      if (early)
        answer(codec::encode_error(runtime::internal_error("expected a single response, got 2")));
      else
        early = std::move(r);
      return;
    }
    if (early && !r.outputs.empty()) {
      answer(codec::encode_error(runtime::internal_error("expected a single response, got 2")));
      return;
    }
    const auto& last = early ? *early : r;
    if (shm_outputs) {
      if (auto st = shm_outputs->deliver(last); !st) {
        answer(codec::encode_error(st));
        return;
      }
    }
    auto encoded = codec::encode_infer_response(last, how);
    // The outputs' bytes were all read by now: a region torn meanwhile means
    // they may be zeros instead of what the client wrote.
    if (shm_outputs) {
      if (auto st = shm_outputs->verify(); !st) {
        answer(codec::encode_error(st));
        return;
      }
    }
    answer(std::move(encoded));
  }
};

// True when `d` names a shared-memory region for an input or an output.
bool names_shared_memory(const codec::decoded_infer& d) {
  if (!d.shared_memory_inputs.empty())
    return true;
  for (const auto& o : d.outputs)
    if (o.shared_memory)
      return true;
  return false;
}

// Decodes the request and fills in what the configuration decides.
runtime::result<codec::decoded_infer> decode(const route_call& call,
                                             const inference::ModelConfig& config) {
  auto decoded = codec::decode_infer_request(*call.req, call.target.model, call.target.version);
  if (!decoded)
    return decoded.error();
  // A frontend that denies client shared memory reaches no region, not
  // even one registered through another frontend of the server.
  if (call.settings.client_shm == protocol::client_shm::denied && names_shared_memory(*decoded))
    return protocol::client_shm_disabled();
  CONCH_RUNTIME_RETURN_IF_ERROR(
    resolve_shared_memory_inputs(*call.settings.shared_memory, *decoded));
  if (decoded->raw_binary)
    CONCH_RUNTIME_RETURN_IF_ERROR(complete_raw_input(config, *decoded));
  decoded->model_batches = config.max_batch_size() > 0;
  if (const auto& pattern = call.settings.header_forward_pattern)
    CONCH_RUNTIME_RETURN_IF_ERROR(
      forward_headers(call.req->headers, *pattern, decoded->request.parameters));
  return decoded;
}

} // namespace

void serve_infer(route_call&& call) {
  auto& server = *call.settings.server;
  auto policy = runtime::frontend_request;
  policy.trace = trace_origin_of(call);
  auto model = server.resolve(call.target.model, call.target.version);
  if (!model) {
    call.res.send(codec::encode_error(model.error()));
    return;
  }
  const auto& config = *(*model)->config;
  if (config.model_transaction_policy().decoupled()) {
    call.res.send(codec::encode_error(runtime::unsupported(
      "HTTP end point doesn't support models with decoupled transaction policy")));
    return;
  }
  auto decoded = decode(call, config);
  if (!decoded) {
    call.res.send(codec::encode_error(decoded.error()));
    return;
  }
  auto shm_outputs = resolve_shared_memory_outputs(*call.settings.shared_memory, *decoded);
  if (!shm_outputs) {
    call.res.send(codec::encode_error(shm_outputs.error()));
    return;
  }
  if (*shm_outputs) {
    decoded->request.allocator = *shm_outputs;
    decoded->request.memory_of_client = runtime::client_memory::shared;
  }
  auto request = std::move(decoded->request);
  policy.model = std::move(*model);
  auto pending = std::make_shared<pending_infer>(
    pending_infer{std::move(*decoded), std::move(call.res), std::move(call.ticket), call.req,
                  std::nullopt, std::move(*shm_outputs), nullptr});
  // The loop may run a small request itself: the answer then goes through
  // the responder's queue before submit returns.
  auto cancel = server.submit(
    std::move(request),
    [pending](runtime::inference_response&& r) { pending->on_response(std::move(r)); },
    std::move(policy));
  // A client that leaves cancels its request; the hook is dropped once the
  // answer is written.
  call.req->on_cancel([cancel = std::move(cancel)] {
    if (cancel)
      cancel();
  });
}

} // namespace conch::transports::http::kserve
