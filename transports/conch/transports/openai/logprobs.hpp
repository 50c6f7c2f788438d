#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace conch::transports::openai {

/// One generated position's log probabilities, as vLLM reports them: the
/// candidates by rank (1: the most likely), the first of which Triton's
/// frontend reports as the token chosen.
struct position_logprobs {
  struct candidate {
    std::string token;
    double logprob = 0;
  };
  /// Every candidate vLLM sent for the position, by rank.
  std::vector<candidate> candidates;
};

/// Reads the `logprobs` output of a vLLM-style model: a JSON array with one
/// object per generated token, `{"<token id>": {"logprob", "rank",
/// "decoded_token"}, ...}`. Empty for "null", an empty array, or text that
/// is not that (a model's mistake is no client's error). A logprob that is
/// not finite (vLLM's -inf) reads as -9999, as OpenAI writes an unlikely
/// token's. Linear in the text.
std::vector<position_logprobs> read_vllm_logprobs(std::string_view json);

/// A chat choice's `logprobs`: `{"content": [{"token", "logprob", "bytes",
/// "top_logprobs": [{"token", "logprob", "bytes"}, ...]}, ...]}`.
std::string chat_logprobs_json(const std::vector<position_logprobs>& positions);

/// A completion choice's `logprobs`: `{"text_offset", "token_logprobs",
/// "tokens", "top_logprobs": [{token: logprob}, ...]}`, the offsets counted
/// in characters from `offset` (the text a stream sent before these).
std::string completion_logprobs_json(const std::vector<position_logprobs>& positions,
                                     int64_t offset);

/// The number of characters (code points) in UTF-8 `text`, as offsets count.
int64_t character_count(std::string_view text) noexcept;

} // namespace conch::transports::openai
