#include "conch/actors/openai_frontend.hpp"

#include "conch/actors/frontends/http_transport.hpp"
#include "conch/actors/frontends/server_gateway.hpp"
#include "conch/transports/openai/api_error.hpp"
#include "conch/transports/openai/encode_responses.hpp"

namespace conch::actors {

namespace {

transports::http::server_options transport_options(const openai_options& o) {
  transports::http::server_options t;
  static_cast<transports::http::listener_options&>(t) = o;
  // What the transport refuses itself answers in the frontend's shapes: a
  // body past --http-max-input-size is OpenAI's 413, anything else
  // FastAPI's {"detail": ...}.
  const size_t limit = o.max_input_size;
  t.refusal_answer = [limit](int status, std::string_view message,
                             std::optional<runtime::statistics::request_refusal> why) {
    transports::openai::api_error e;
    if (why == runtime::statistics::request_refusal::body_size)
      e = transports::openai::openai_error(
        413, "Request content size exceeds the maximum allowed input size of "
               + std::to_string(limit)
               + " bytes. Use --http-max-input-size to increase the limit.",
        "invalid_request_error", "content_too_large");
    else
      e = transports::openai::detail_error(status, message);
    return transports::http::response::text(e.status, e.body, "application/json");
  };
  return t;
}

runtime::status check(const openai_options& o) {
  CONCH_RUNTIME_RETURN_IF_ERROR(check_port(o.port));
  CONCH_RUNTIME_RETURN_IF_ERROR(check_thread_count(o.thread_count));
  if (o.max_inflight < 0)
    return runtime::invalid_argument("max_inflight must not be negative");
  if (o.default_max_tokens < 0)
    return runtime::invalid_argument("default_max_tokens must not be negative");
  if (o.max_tool_call_parse_bytes <= 0)
    return runtime::invalid_argument("max_tool_call_parse_bytes must be positive");
  if (!o.tool_call_parser.empty()) {
    auto format = transports::openai::tool_call_format_named(o.tool_call_parser);
    if (!format)
      return format.error();
  }
  return check(transport_options(o));
}

using transport_result = runtime::result<std::shared_ptr<listening_transport>>;

} // namespace

openai_frontend::openai_frontend(server& srv, openai_options options)
  : listening_frontend(srv, "OpenAIService", "OpenAI"), options_(std::move(options)),
    input_(std::make_shared<runtime::statistics::byte_budget>(options_.policy.max_inflight_bytes)) {
  publish_edge(input_);
}

runtime::status openai_frontend::start() {
  const int64_t created = transports::openai::unix_seconds();
  return start_transport(options_.address, [this, created](uint16_t port) -> transport_result {
    CONCH_RUNTIME_RETURN_IF_ERROR(check(options_));
    transports::openai::openai_handler_options h;
    h.server = std::make_shared<server_gateway>(srv_);
    h.max_inflight = options_.max_inflight;
    h.stats = edge_;
    h.restricted_apis = options_.restricted_apis;
    h.api_key = options_.api_key;
    h.default_max_tokens = options_.default_max_tokens;
    h.chat_template = options_.chat_template;
    h.count_tokens = options_.count_tokens;
    if (!options_.tool_call_parser.empty())
      h.tool_call_parser = *transports::openai::tool_call_format_named(options_.tool_call_parser);
    h.max_tool_call_parse_bytes = static_cast<size_t>(options_.max_tool_call_parse_bytes);
    h.lora.separator = options_.lora_separator;
    h.lora.by_model = options_.lora_adapters;
    h.created = created;
    auto handler = transports::openai::openai_handler::make(std::move(h));
    if (!handler)
      return handler.error();
    auto o = transport_options(options_);
    o.stop_timeout = transport_stop_budget(srv_.options().exit_timeout);
    if (port != 0)
      o.port = port;
    return transport_result{std::make_shared<http_transport>(
      std::move(o), std::move(*handler), edge_, input_, "OpenAI")};
  });
}

} // namespace conch::actors
