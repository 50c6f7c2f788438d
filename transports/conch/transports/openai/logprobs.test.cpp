#include "conch/transports/openai/logprobs.hpp"

#include <rapidjson/document.h>

#include <gtest/gtest.h>

namespace conch::transports::openai {
namespace {

const char* const two_tokens =
  R"([{"11": {"logprob": -0.5, "rank": 2, "decoded_token": " b"},
        "10": {"logprob": -0.1, "rank": 1, "decoded_token": "Hé"}},
       {"12": {"logprob": -Infinity, "rank": 1, "decoded_token": "!"}}])";

TEST(logprobs, reads_vllms_positions_by_rank) {
  auto p = read_vllm_logprobs(two_tokens);
  ASSERT_EQ(p.size(), 2u);
  ASSERT_EQ(p[0].candidates.size(), 2u);
  EXPECT_EQ(p[0].candidates[0].token, "Hé");
  EXPECT_EQ(p[0].candidates[1].token, " b");
  EXPECT_EQ(p[1].candidates[0].logprob, -9999.0);
  EXPECT_TRUE(read_vllm_logprobs("null").empty());
  EXPECT_TRUE(read_vllm_logprobs("[]").empty());
  EXPECT_TRUE(read_vllm_logprobs("{bad").empty());
}

TEST(logprobs, chat_and_completion_shapes) {
  auto p = read_vllm_logprobs(two_tokens);
  rapidjson::Document chat;
  chat.Parse(chat_logprobs_json(p).c_str());
  ASSERT_FALSE(chat.HasParseError());
  const auto& first = chat["content"][0];
  EXPECT_STREQ(first["token"].GetString(), "Hé");
  EXPECT_EQ(first["bytes"].Size(), 3u);  // H, and é's two bytes
  EXPECT_EQ(first["top_logprobs"].Size(), 2u);
  rapidjson::Document completion;
  completion.Parse(completion_logprobs_json(p, 5).c_str());
  ASSERT_FALSE(completion.HasParseError());
  EXPECT_EQ(completion["text_offset"][0].GetInt(), 5);
  EXPECT_EQ(completion["text_offset"][1].GetInt(), 7);  // "Hé" is two characters
  EXPECT_STREQ(completion["tokens"][1].GetString(), "!");
  EXPECT_DOUBLE_EQ(completion["top_logprobs"][0][" b"].GetDouble(), -0.5);
}

} // namespace
} // namespace conch::transports::openai
