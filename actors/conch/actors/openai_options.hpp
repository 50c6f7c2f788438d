#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "conch/transports/http/listener_options.hpp"
#include "conch/transports/openai/api_restrictions.hpp"
#include "conch/transports/openai/openai_handler.hpp"

namespace conch::actors {

/// One restricted group of OpenAI endpoints (--openai-restricted-api):
/// the API groups ("inference", "embedding", "model-repository",
/// "model-management", "metrics", "health") a request reaches only with
/// header `key` set to `value`.
using openai_restricted_api = transports::openai::api_restriction;

/// Renders chat messages into the prompt a model continues
/// (transports/openai/openai_handler.hpp).
using chat_renderer = transports::openai::chat_renderer;

/// Counts a text's tokens, for the usage of a model that reports none.
using token_counter = transports::openai::token_counter;

/// Options of the OpenAI-compatible frontend: how it listens
/// (transports::http::listener_options, port 9000 here as Triton's) and
/// what its routes do. Field names follow the flags of Triton's OpenAI
/// frontend where it has them.
struct openai_options : transports::http::listener_options {
  openai_options() { port = 9000; }

  /// The `max_tokens` of a request that names none (--default-max-tokens).
  int64_t default_max_tokens = 16;
  /// Endpoint groups behind a required header; 401 without it.
  std::vector<openai_restricted_api> restricted_apis;
  /// When set, every /v1 route needs `Authorization: Bearer <api_key>`, as
  /// OpenAI's clients send their key; 401 otherwise.
  std::string api_key;
  /// How the models write tool calls, "llama3" or "mistral"
  /// (--tool-call-parser): chat requests with tools and tool_choice "auto"
  /// (or none) have the answer read for calls. Empty: such requests are
  /// refused with 400, as Triton refuses them without a parser.
  std::string tool_call_parser;
  /// The most bytes of a tool call read; past it the answer ends with
  /// finish_reason "length" and the request is cancelled
  /// (--max-tool-call-parse-bytes).
  int64_t max_tool_call_parse_bytes = 1024 * 1024;
  /// Splits a requested model name into a model and its LoRA adapter
  /// ("<model><separator><adapter>", --lora-separator); empty: never.
  std::string lora_separator;
  /// Each model's LoRA adapters, in their task-id order (Conch's Python
  /// package reads them from each model's multi_lora.json): /v1/models
  /// lists them, and a request naming another adapter of a listed model
  /// gets 400 "Unknown LoRA: ...". A model not listed takes any adapter.
  std::map<std::string, std::vector<std::string>> lora_adapters;
  /// Inference requests at most in flight; beyond it they get 503 at once.
  /// 0: no limit.
  int64_t max_inflight = 4096;
  /// Renders chat messages into a prompt (Conch's Python package supplies
  /// a Jinja2 one from a tokenizer's chat template); without one, chat
  /// completions answer 400. Not an option by name: set in code.
  chat_renderer chat_template;
  /// Counts tokens with the models' tokenizer (Conch's Python package uses
  /// the tokenizer folder's tokenizer.json): the usage of a model that
  /// reports no token counts. Without one, such a model's usage is null.
  /// Not an option by name: set in code.
  token_counter count_tokens;
};

/// Every named option of `o`, the listener's among them: `visit(name,
/// field)` for each (not chat_template, which is code).
template <class Visit>
void for_each_option(openai_options& o, Visit&& visit) {
  for_each_option(static_cast<transports::http::listener_options&>(o), visit);
  visit("default_max_tokens", o.default_max_tokens);
  visit("restricted_apis", o.restricted_apis);
  visit("api_key", o.api_key);
  visit("max_inflight", o.max_inflight);
  visit("tool_call_parser", o.tool_call_parser);
  visit("max_tool_call_parse_bytes", o.max_tool_call_parse_bytes);
  visit("lora_separator", o.lora_separator);
  visit("lora_adapters", o.lora_adapters);
}

} // namespace conch::actors

namespace conch {
using actors::openai_options;
} // namespace conch
