#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "conch/runtime/inference_response.hpp"
#include "conch/runtime/result.hpp"

namespace conch::transports::openai {

/// What one response of a text generation model carries: its text (the
/// whole answer, or the next piece of a stream), the token counts it
/// reports, and its log probabilities as JSON text.
struct generation_output {
  std::string text;
  std::optional<int64_t> prompt_tokens;
  std::optional<int64_t> completion_tokens;
  /// vLLM's per-token log probabilities, as the model wrote them; empty
  /// when it sent none.
  std::string logprobs_json;
};

/// Reads `response`: `text_output` must hold one string when present (an
/// empty response, a stream's closing flag, has none and reads as "");
/// `num_input_tokens` / `num_output_tokens` of any integer type; INTERNAL
/// for a text output with another number of elements, as Triton words it.
runtime::result<generation_output> read_generation(const runtime::inference_response& response);

/// a + b, held at the ends of int64_t: token counts come from models.
int64_t saturating_add(int64_t a, int64_t b) noexcept;

/// Token counts of one answer, as `usage` reports them.
struct usage_counts {
  int64_t prompt = 0;
  int64_t completion = 0;
};

/// Adds up the counts of a streamed answer: the prompt's from the first
/// response that reports it, the completion's summed over responses (each
/// reports its own piece). Unset until both were seen once.
class usage_tally {
 public:
  void add(const generation_output& piece);
  std::optional<usage_counts> counts() const;

 private:
  std::optional<int64_t> prompt_;
  std::optional<int64_t> completion_;
};

} // namespace conch::transports::openai
