#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace conch::transports::openai {

/// Whether a streamed answer ends with a chunk that carries the usage
/// (`stream_options.include_usage`).
enum class usage_chunk : bool { omitted, included };

/// What the model is asked to produce, shared by chat and text completions:
/// the sampling settings of OpenAI's schema after its checks, defaults
/// applied. A setting the client sent as null is left unset, so it reaches
/// no model.
struct generation_settings {
  std::string model;
  bool stream = false;
  usage_chunk usage = usage_chunk::omitted;
  /// `max_completion_tokens`, else `max_tokens`; unset when the client gave
  /// neither (the frontend's --default-max-tokens applies then).
  std::optional<int64_t> max_tokens;
  std::optional<int64_t> min_tokens;
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::optional<double> frequency_penalty;
  std::optional<double> presence_penalty;
  std::optional<int64_t> seed;
  bool ignore_eos = false;
  /// Sequences that end the text, which the answer leaves out.
  std::vector<std::string> stop;
  /// How many top alternatives to report per token; unset: no log probabilities.
  std::optional<int64_t> logprobs;
  /// Whether the answer repeats the prompt (completions' `echo`); unset
  /// when the client did not say.
  std::optional<bool> echo;
  std::string user;
  /// The LoRA adapter the model runs with ("" for none), and its task id
  /// where the model lists its adapters (lora.hpp).
  std::string lora_name;
  std::optional<uint64_t> lora_task_id;
};

/// A `POST /v1/completions` body: one prompt string.
struct completion_request {
  generation_settings settings;
  std::string prompt;
};

/// How a chat request lets the model call its tools.
enum class tool_choice_mode { unset, none, auto_, required, named };

/// A `POST /v1/chat/completions` body. The messages and tools stay JSON
/// text, as the chat template takes them.
struct chat_request {
  generation_settings settings;
  /// The `messages` array as JSON text, each assistant tool call's
  /// `function.arguments` turned from a JSON string into an object, as
  /// chat templates expect it.
  std::string messages_json;
  /// The `tools` array as JSON text; empty when the request has none.
  std::string tools_json;
  /// The names of the functions `tools` declares, in order.
  std::vector<std::string> tool_names;
  /// The JSON schema of each function's parameters, as text ("{}" when it
  /// declares none), in the same order.
  std::vector<std::string> tool_parameters;
  tool_choice_mode tool_choice = tool_choice_mode::unset;
  /// The function `tool_choice` names (tool_choice_mode::named).
  std::string tool_choice_name;
  /// `response_format`: "json_object" asks for any JSON object,
  /// "json_schema" for JSON that follows `response_schema_json`.
  bool response_json = false;
  std::string response_schema_json;
};

/// How an embedding is written: a list of numbers, or the base64 of its
/// float32 bytes.
enum class embedding_encoding { floats, base64 };

/// A `POST /v1/embeddings` body: one or more texts, or one list of token ids.
struct embedding_request {
  std::string model;
  /// The texts, one embedding each (empty when the input is token ids).
  std::vector<std::string> texts;
  /// The input as a JSON list of token ids, when given so.
  std::string token_ids_json;
  std::optional<int64_t> dimensions;
  embedding_encoding encoding = embedding_encoding::floats;
  std::string user;
};

} // namespace conch::transports::openai
