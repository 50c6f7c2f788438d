#include "conch/transports/openai/encode_responses.hpp"

#include <chrono>
#include <cstdio>
#include <random>

#include "conch/transports/openai/json_text.hpp"

namespace conch::transports::openai {

namespace {

void write_usage(json_text& j, std::optional<usage_counts> usage) {
  j.key("usage");
  if (!usage) {
    j.null();
    return;
  }
  j.begin_object();
  j.member("prompt_tokens", usage->prompt);
  j.member("completion_tokens", usage->completion);
  j.member("total_tokens", saturating_add(usage->prompt, usage->completion));
  j.end_object();
}

void write_logprobs(json_text& j, std::string_view logprobs) {
  j.key("logprobs");
  if (logprobs.empty())
    j.null();
  else
    j.raw(logprobs);
}

void write_finish(json_text& j, std::optional<std::string_view> finish_reason) {
  j.key("finish_reason");
  if (finish_reason)
    j.value(*finish_reason);
  else
    j.null();
}

// The members every body and chunk ends with.
void write_tail(json_text& j, const answer_header& h, std::string_view object) {
  j.member("created", h.created);
  j.member("model", h.model);
  j.null_member("system_fingerprint");
  j.member("object", object);
}

void begin_answer(json_text& j, const answer_header& h) {
  j.begin_object();
  j.member("id", h.id);
  j.key("choices");
  j.begin_array();
}

std::string chat_chunk(const answer_header& h, std::optional<std::string_view> role,
                       std::optional<std::string_view> content,
                       const std::vector<tool_call_delta>* calls,
                       std::optional<std::string_view> finish_reason,
                       std::string_view logprobs = {}) {
  json_text j;
  begin_answer(j, h);
  j.begin_object();
  j.member("index", 0);
  j.key("delta");
  j.begin_object();
  j.key("role");
  if (role)
    j.value(*role);
  else
    j.null();
  if (content)
    j.member("content", *content);
  if (calls != nullptr) {
    j.key("tool_calls");
    j.begin_array();
    for (const auto& d : *calls) {
      j.begin_object();
      j.member("index", d.index);
      if (d.first) {
        j.member("id", d.id);
        j.member("type", "function");
      }
      j.key("function");
      j.begin_object();
      if (d.first)
        j.member("name", d.name);
      j.member("arguments", d.arguments);
      j.end_object();
      j.end_object();
    }
    j.end_array();
  }
  j.null_member("function_call");
  j.end_object();
  write_logprobs(j, logprobs);
  write_finish(j, finish_reason);
  j.end_object();
  j.end_array();
  write_tail(j, h, "chat.completion.chunk");
  j.null_member("usage");
  j.end_object();
  return j.take();
}

// A text completion, whole or a chunk: the same members, a chunk's usage null.
std::string completion_json(const answer_header& h, std::string_view text,
                            std::optional<std::string_view> finish_reason,
                            std::optional<usage_counts> usage, std::string_view logprobs) {
  json_text j;
  begin_answer(j, h);
  j.begin_object();
  write_finish(j, finish_reason);
  j.member("index", 0);
  write_logprobs(j, logprobs);
  j.member("text", text);
  j.end_object();
  j.end_array();
  write_tail(j, h, "text_completion");
  write_usage(j, usage);
  j.end_object();
  return j.take();
}

} // namespace

std::string new_answer_id() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  uint64_t hi = random();
  uint64_t lo = random();
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 1
  char text[37];
  std::snprintf(text, sizeof text, "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xffff),
                static_cast<unsigned>(hi & 0xffff), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return std::string{"cmpl-"} + text;
}

int64_t unix_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

std::string completion_body(const answer_header& h, std::string_view text,
                            std::string_view finish_reason, std::optional<usage_counts> usage,
                            std::string_view logprobs) {
  return completion_json(h, text, finish_reason, usage, logprobs);
}

std::string completion_chunk(const answer_header& h, std::string_view text,
                             std::optional<std::string_view> finish_reason,
                             std::string_view logprobs) {
  return completion_json(h, text, finish_reason, std::nullopt, logprobs);
}

std::string chat_body(const answer_header& h, std::string_view content,
                      const std::vector<tool_call>& calls, std::string_view finish_reason,
                      std::optional<usage_counts> usage, std::string_view logprobs) {
  json_text j;
  begin_answer(j, h);
  j.begin_object();
  j.member("finish_reason", finish_reason);
  j.member("index", 0);
  j.key("message");
  j.begin_object();
  j.member("content", content);
  j.key("tool_calls");
  if (calls.empty()) {
    j.null();
  } else {
    j.begin_array();
    for (const auto& c : calls) {
      j.begin_object();
      j.member("id", c.id);
      j.member("type", "function");
      j.key("function");
      j.begin_object();
      j.member("name", c.name);
      j.member("arguments", c.arguments);
      j.end_object();
      j.end_object();
    }
    j.end_array();
  }
  j.member("role", "assistant");
  j.null_member("function_call");
  j.end_object();
  write_logprobs(j, logprobs);
  j.end_object();
  j.end_array();
  write_tail(j, h, "chat.completion");
  write_usage(j, usage);
  j.end_object();
  return j.take();
}

std::string chat_role_chunk(const answer_header& h) {
  return chat_chunk(h, "assistant", "", nullptr, std::nullopt);
}

std::string chat_content_chunk(const answer_header& h, std::string_view content,
                               std::optional<std::string_view> finish_reason,
                               std::string_view logprobs) {
  return chat_chunk(h, std::nullopt, content, nullptr, finish_reason, logprobs);
}

std::string chat_tool_chunk(const answer_header& h, const std::vector<tool_call_delta>& deltas,
                            std::optional<std::string_view> finish_reason) {
  return chat_chunk(h, std::nullopt, std::nullopt, &deltas, finish_reason);
}

std::string usage_chunk_body(const answer_header& h, std::string_view object,
                             usage_counts usage) {
  json_text j;
  j.begin_object();
  j.member("id", h.id);
  j.key("choices");
  j.begin_array();
  j.end_array();
  write_tail(j, h, object);
  write_usage(j, usage);
  j.end_object();
  return j.take();
}

std::string embedding_body(std::string_view model, const std::vector<std::string>& embeddings,
                           std::optional<usage_counts> usage) {
  json_text j;
  j.begin_object();
  j.member("object", "list");
  j.key("data");
  j.begin_array();
  int index = 0;
  for (const auto& e : embeddings) {
    j.begin_object();
    j.member("object", "embedding");
    j.key("embedding");
    j.raw(e);
    j.member("index", index++);
    j.end_object();
  }
  j.end_array();
  j.member("model", model);
  j.key("usage");
  if (usage) {
    j.begin_object();
    j.member("prompt_tokens", usage->prompt);
    j.member("total_tokens", usage->prompt);
    j.end_object();
  } else {
    j.null();
  }
  j.end_object();
  return j.take();
}

std::string model_object(std::string_view name, int64_t created) {
  json_text j;
  j.begin_object();
  j.member("id", name);
  j.member("created", created);
  j.member("object", "model");
  j.member("owned_by", "Triton Inference Server");
  j.end_object();
  return j.take();
}

std::string model_list(const std::vector<std::string>& names, int64_t created) {
  json_text j;
  j.begin_object();
  j.member("object", "list");
  j.key("data");
  j.begin_array();
  for (const auto& n : names)
    j.raw(model_object(n, created));
  j.end_array();
  j.end_object();
  return j.take();
}

std::string sse_event(std::string_view json) {
  std::string out;
  out.reserve(json.size() + 8);
  out.append("data: ").append(json).append("\n\n");
  return out;
}

std::string_view sse_done() { return "data: [DONE]\n\n"; }

} // namespace conch::transports::openai
