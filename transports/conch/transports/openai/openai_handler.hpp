#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/result.hpp"
#include "conch/runtime/statistics/connection_stats.hpp"
#include "conch/transports/gateway.hpp"
#include "conch/transports/http/handler.hpp"
#include "conch/transports/openai/api_restrictions.hpp"
#include "conch/transports/openai/lora.hpp"
#include "conch/transports/openai/render_pool.hpp"
#include "conch/transports/openai/tool_calls.hpp"
#include "conch/transports/protocol/admission.hpp"

namespace conch::transports::openai {

/// What a chat template renders: the request's messages and tools as JSON
/// text (tools empty when the request has none). The generation prompt is
/// always added, so the model answers as the assistant.
struct chat_prompt {
  std::string_view messages_json;
  std::string_view tools_json;
};

/// Turns a chat into the prompt text the model continues (Hugging Face's
/// `apply_chat_template` with a Jinja2 template, in Conch's Python
/// package). Called once per chat request on one of the handler's render
/// threads (never a loop thread), from two at once: it must be thread-safe.
/// An error answers 400 with its message.
using chat_renderer = std::function<runtime::result<std::string>(const chat_prompt&)>;

/// Counts the tokens of a text with the model's tokenizer, for the usage of
/// a model that reports no token counts (Conch's Python package uses the
/// tokenizer folder's tokenizer.json). Called on a render thread, from two
/// at once: it must be thread-safe. nullopt: it cannot tell.
using token_counter = std::function<std::optional<int64_t>(std::string_view text)>;

/// What an OpenAI handler is made from.
struct openai_handler_options {
  /// The server the requests go to.
  gateway_ptr server;
  /// Inference requests at most in flight; beyond it they get 503. 0: no limit.
  int64_t max_inflight = 0;
  /// Where refusals past max_inflight are counted; none when null.
  std::shared_ptr<runtime::statistics::connection_stats> stats;
  /// Endpoint groups behind a required header (401 without it).
  std::vector<api_restriction> restricted_apis;
  /// When set, every /v1 route needs `Authorization: Bearer <api_key>`.
  std::string api_key;
  /// The `max_tokens` a request that names none asks for.
  int64_t default_max_tokens = 16;
  /// Renders chat messages into a prompt; without one, chat requests
  /// answer 400.
  chat_renderer chat_template;
  /// Counts tokens where a model reports none; without one, such a model's
  /// usage is null (as in Triton).
  token_counter count_tokens;
  /// How the models write tool calls (--tool-call-parser); unset: chat
  /// requests with tools need a named or required tool_choice.
  std::optional<tool_call_format> tool_call_parser;
  /// The most bytes of a tool call read before the answer ends with
  /// finish_reason "length" (--max-tool-call-parse-bytes).
  size_t max_tool_call_parse_bytes = 1024 * 1024;
  /// LoRA adapters: the separator that splits a model name and each
  /// model's adapters.
  lora_adapters lora;
  /// Seconds since the epoch that /v1/models reports as each model's
  /// `created`: when the frontend started.
  int64_t created = 0;
};

/// Triton's OpenAI-compatible API over the HTTP transport: /v1/completions,
/// /v1/chat/completions (whole answers or server-sent events),
/// /v1/embeddings, /v1/models, model load and unload, /health/ready and
/// /metrics, each answering in the shapes Triton's OpenAI frontend uses.
/// Inference goes through the server's one submit path; a client that
/// disconnects cancels its request. Runs on the loop threads and never
/// blocks (but for the chat renderer). Thread-safe.
class openai_handler final : public http::handler {
 public:
  /// A handler; INVALID_ARG for no server or a bad restriction.
  static runtime::result<std::shared_ptr<openai_handler>> make(openai_handler_options options);

  void handle(http::request_ptr req, http::responder res) override;

  /// Inference requests admitted and not yet answered.
  int64_t in_flight() const noexcept { return admission_.in_flight(); }

 private:
  openai_handler(openai_handler_options options, api_restrictions restricted);

 public:
  /// Stops the render pool before the options its tasks read go (an answer
  /// in flight may still hold the pool).
  ~openai_handler() override;

 private:

  bool refuse(api_group group, const http::request& req, http::responder& res) const;
  bool authorized(const http::request& req) const;
  void serve_models(const std::vector<std::string>& segments, http::responder res) const;
  void serve_model_change(const std::string& model, bool load, http::responder res) const;

  openai_handler_options options_;
  api_restrictions restricted_;
  protocol::admission admission_;
  // Last, so that its threads are joined before what their tasks use goes.
  // Answers in flight hold it weakly: it goes with the handler.
  std::shared_ptr<render_pool> renderers_;
};

} // namespace conch::transports::openai
