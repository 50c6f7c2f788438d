#pragma once

#include <mutex>

#include "conch/transports/gateway.hpp"
#include "conch/transports/http/request.hpp"
#include "conch/transports/http/responder.hpp"
#include "conch/transports/openai/api_error.hpp"
#include "conch/transports/openai/openai_handler.hpp"
#include "conch/transports/openai/render_pool.hpp"
#include "conch/transports/protocol/admission.hpp"

namespace conch::transports::openai {

/// One request to an inference route, as the handler hands it on: admitted,
/// authorized, not yet decoded.
struct route_call {
  /// The handler's options; used only before the call returns (the
  /// callbacks a route leaves behind hold copies of what they need).
  const openai_handler_options& options;
  /// The handler's admission, for a route whose request waits on the server
  /// as several (embeddings).
  const protocol::admission& admission;
  /// Where chats are rendered and tokens counted; null without a chat
  /// template or a token counter.
  const std::shared_ptr<render_pool>& renderers;
  http::request_ptr req;
  http::responder res;
  protocol::admission::ticket ticket;
};

/// POST /v1/completions.
void serve_completion(route_call&& call);

/// POST /v1/chat/completions.
void serve_chat(route_call&& call);

/// POST /v1/embeddings.
void serve_embeddings(route_call&& call);

/// `error` as an HTTP answer: its status, its JSON body.
http::response error_response(const api_error& error);

/// A 200 answer with a JSON body.
http::response json_response(std::string body);

/// The model a request names, READY, with its configuration; 400 "Unknown
/// model: <shown>" for one the server does not have (`shown`: the name the
/// client gave, `name` with its LoRA adapter), the refusal's answer for one
/// it cannot serve now.
runtime::result<runtime::resolved_model_ptr> resolve_model(gateway& server,
                                                           const std::string& name,
                                                           const std::string& shown);

inline runtime::result<runtime::resolved_model_ptr> resolve_model(gateway& server,
                                                                  const std::string& name) {
  return resolve_model(server, name, name);
}

/// Holds what cancels a submitted request, which may be wanted before the
/// submit call has returned it (a response that ends the answer early, a
/// client gone): a cancel asked for first runs as soon as it is set.
/// Thread-safe.
class cancel_slot {
 public:
  void set(cancel_fn fn);
  void cancel();

 private:
  std::mutex mutex_;
  cancel_fn fn_;
  bool wanted_ = false;
};

} // namespace conch::transports::openai
