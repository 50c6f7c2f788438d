#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conch/transports/openai/generation_output.hpp"

namespace conch::transports::openai {

/// What every body and chunk of one answer repeats: its id
/// (`cmpl-<uuid>`), when it was made (seconds since the epoch) and the
/// model name the client asked for.
struct answer_header {
  std::string id;
  int64_t created = 0;
  std::string model;
};

/// A function call the model asked for, as a chat answer reports it.
struct tool_call {
  std::string id;
  std::string name;
  /// The arguments, as the JSON text the model wrote.
  std::string arguments;
};

/// A new answer id: "cmpl-" and a random (version 4) UUID.
std::string new_answer_id();

/// Seconds since the epoch, as answers and models report `created`.
int64_t unix_seconds();

// A `logprobs` argument is the choice's log probabilities as JSON text
// (logprobs.hpp); empty writes null.

// -- text completions (object "text_completion") ----------------------------

/// The whole answer: one choice with `text` and `finish_reason`, and the
/// usage when known (null otherwise). Every field is present, nulls too.
std::string completion_body(const answer_header& h, std::string_view text,
                            std::string_view finish_reason, std::optional<usage_counts> usage,
                            std::string_view logprobs = {});

/// One streamed piece: a choice with `text` and, on the last piece,
/// `finish_reason` (null before); usage null.
std::string completion_chunk(const answer_header& h, std::string_view text,
                             std::optional<std::string_view> finish_reason,
                             std::string_view logprobs = {});

// -- chat completions (object "chat.completion", "chat.completion.chunk") ---

/// The whole answer: one choice whose message has `content` and the tool
/// calls, if any.
std::string chat_body(const answer_header& h, std::string_view content,
                      const std::vector<tool_call>& calls, std::string_view finish_reason,
                      std::optional<usage_counts> usage, std::string_view logprobs = {});

/// The first chunk of a chat stream: the assistant's role, empty content.
std::string chat_role_chunk(const answer_header& h);

/// A chunk with a piece of content and, on the last, `finish_reason`.
std::string chat_content_chunk(const answer_header& h, std::string_view content,
                               std::optional<std::string_view> finish_reason,
                               std::string_view logprobs = {});

/// A piece of a tool call: index `index`; the id, type and name on its
/// first piece (`first`), the next fragment of its arguments.
struct tool_call_delta {
  int index = 0;
  bool first = false;
  std::string id;
  std::string name;
  std::string arguments;
};

/// A chunk with tool call pieces and, on the last, `finish_reason`.
std::string chat_tool_chunk(const answer_header& h, const std::vector<tool_call_delta>& deltas,
                            std::optional<std::string_view> finish_reason);

/// The chunk before `[DONE]` when the client asked for the usage: no
/// choices, the usage of the whole answer. `object` is the chunks' object
/// name.
std::string usage_chunk_body(const answer_header& h, std::string_view object,
                             usage_counts usage);

// -- embeddings ---------------------------------------------------------------

/// The answer of /v1/embeddings: one entry per input, each a JSON list of
/// numbers (`embeddings_json[i]`, as the model wrote it) or its base64.
std::string embedding_body(std::string_view model, const std::vector<std::string>& embeddings,
                           std::optional<usage_counts> usage);

// -- models -------------------------------------------------------------------

/// One model as /v1/models lists it.
std::string model_object(std::string_view name, int64_t created);

/// The list /v1/models answers.
std::string model_list(const std::vector<std::string>& names, int64_t created);

// -- server-sent events -------------------------------------------------------

/// `data: <json>` and a blank line.
std::string sse_event(std::string_view json);

/// The event that ends every stream: `data: [DONE]`.
std::string_view sse_done();

} // namespace conch::transports::openai
