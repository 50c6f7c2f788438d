#include "conch/transports/openai/decode_requests.hpp"

#include <string>

#include <gtest/gtest.h>

namespace conch::transports::openai {
namespace {

TEST(decode_completion, takes_a_prompt_and_applies_the_schema_defaults) {
  completion_request r;
  auto bad = decode_completion_request(
    R"({"model":"m","prompt":"hi","max_tokens":5,"stop":"x","seed":7,"stream":true,)"
    R"("stream_options":{"include_usage":true}})",
    r);
  ASSERT_FALSE(bad) << bad->body;
  EXPECT_EQ(r.settings.model, "m");
  EXPECT_EQ(r.prompt, "hi");
  EXPECT_EQ(r.settings.max_tokens, 5);
  EXPECT_EQ(r.settings.temperature, 1.0);
  EXPECT_EQ(r.settings.top_p, 1.0);
  ASSERT_EQ(r.settings.stop.size(), 1u);
  EXPECT_EQ(r.settings.stop[0], "x");
  EXPECT_EQ(r.settings.seed, 7);
  EXPECT_TRUE(r.settings.stream);
  EXPECT_EQ(r.settings.usage, usage_chunk::included);
  EXPECT_FALSE(r.settings.echo);
}

TEST(decode_completion, reports_every_schema_error_as_422) {
  completion_request r;
  auto bad = decode_completion_request(
    R"({"prompt":"hi","temperature":3,"top_p":"x","n":0,"colour":"red"})", r);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 422);
  for (const char* part :
       {R"("loc":["body","temperature"])", "less than or equal to 2", R"("loc":["body","top_p"])",
        "valid number", R"("loc":["body","n"])", "greater than or equal to 1",
        R"("type":"extra_forbidden","loc":["body","colour"])",
        R"("type":"missing","loc":["body","model"])"})
    EXPECT_NE(bad->body.find(part), std::string::npos) << part << " in " << bad->body;
}

TEST(decode_completion, refuses_what_it_does_not_serve_with_400) {
  struct refusal {
    const char* body;
    const char* message;
  };
  for (auto c : {refusal{R"({"model":"m","prompt":"p","n":2})", "Received n=2"},
                 refusal{R"({"model":"m","prompt":"p","best_of":3})", "Received best_of=3"},
                 refusal{R"({"model":"m","prompt":"p","logit_bias":{"1":2}})",
                         "logit bias is not supported"},
                 refusal{R"({"model":"m","prompt":"p","stream_options":{}})",
                         "`stream_options` can only be used when `stream` is True"},
                 refusal{R"({"model":"m","prompt":"p","suffix":"s"})", "suffix"},
                 refusal{R"({"model":"m","prompt":["a","b"]})", "only single string"},
                 refusal{R"({"model":"m","prompt":""})", "prompt must be non-empty"}}) {
    completion_request r;
    auto bad = decode_completion_request(c.body, r);
    ASSERT_TRUE(bad) << c.body;
    EXPECT_EQ(bad->status, 400) << c.body;
    EXPECT_NE(bad->body.find(c.message), std::string::npos) << bad->body;
  }
}

TEST(decode_completion, malformed_and_deep_json_is_a_422_not_a_crash) {
  completion_request r;
  for (std::string body : {std::string{"{"}, std::string{"[1,2]"}, std::string{"\"x\""},
                           std::string(100000, '[') + std::string(100000, ']')}) {
    auto bad = decode_completion_request(body, r);
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 422);
  }
}

TEST(decode_completion, bounds_the_stop_sequences) {
  completion_request r;
  std::string many = R"({"model":"m","prompt":"p","stop":[)";
  for (int i = 0; i < 17; ++i)
    many += std::string(i == 0 ? "" : ",") + "\"s\"";
  auto bad = decode_completion_request(many + "]}", r);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 422);
  bad = decode_completion_request(
    R"({"model":"m","prompt":"p","stop":[")" + std::string(300, 'x') + "\"]}", r);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 422);
}

TEST(decode_chat, keeps_the_messages_and_parses_tool_call_arguments) {
  chat_request r;
  auto bad = decode_chat_request(R"({"model":"m","messages":[
      {"role":"user","content":"hi"},
      {"role":"assistant","tool_calls":[{"id":"c1","type":"function",
        "function":{"name":"f","arguments":"{\"a\":1}"}}]},
      {"role":"tool","content":"2","tool_call_id":"c1"}],
    "max_completion_tokens":9,"max_tokens":3})",
                                 r);
  ASSERT_FALSE(bad) << bad->body;
  EXPECT_EQ(r.settings.max_tokens, 9);
  EXPECT_EQ(r.settings.temperature, 0.7);
  EXPECT_NE(r.messages_json.find(R"("arguments":{"a":1})"), std::string::npos)
    << r.messages_json;
  EXPECT_EQ(r.tool_choice, tool_choice_mode::unset);
}

TEST(decode_chat, checks_messages_and_tools) {
  struct answer {
    const char* body;
    int status;
    const char* text;
  };
  for (auto c : {
         answer{R"({"model":"m","messages":[]})", 422, "at least 1 item"},
         answer{R"({"model":"m"})", 422, R"("loc":["body","messages"])"},
         answer{R"({"model":"m","messages":[{"content":"x"}]})", 422,
                R"("loc":["body","messages",0,"role"])"},
         answer{R"({"model":"m","messages":[{"role":"wizard","content":"x"}]})", 422, "wizard"},
         answer{R"({"model":"m","messages":[{"role":"user","content":[{"type":"image_url"}]}]})",
                400, "only text message is supported, but got image_url"},
         answer{R"({"model":"m","messages":[{"role":"user","content":"x"}],"top_logprobs":2})",
                400, "`top_logprobs` can only be used when `logprobs` is True"},
         answer{R"({"model":"m","messages":[{"role":"user","content":"x"}],"tool_choice":"required"})",
                400, "\\\"required\\\" tool choice requires"},
         answer{R"({"model":"m","messages":[{"role":"user","content":"x"}],
                   "tools":[{"type":"function","function":{"name":"f"}}],
                   "tool_choice":{"type":"function","function":{"name":"g"}}})",
                400, "Tool 'g' has not been passed in `tools`."},
       }) {
    chat_request r;
    auto bad = decode_chat_request(c.body, r);
    ASSERT_TRUE(bad) << c.body;
    EXPECT_EQ(bad->status, c.status) << bad->body;
    EXPECT_NE(bad->body.find(c.text), std::string::npos) << bad->body;
  }
}

TEST(decode_chat, logprobs_true_asks_for_the_top_alternatives) {
  chat_request r;
  ASSERT_FALSE(decode_chat_request(
    R"({"model":"m","messages":[{"role":"user","content":"x"}],"logprobs":true,"top_logprobs":3})",
    r));
  EXPECT_EQ(r.settings.logprobs, 3);
}

TEST(decode_embedding, takes_texts_or_token_ids) {
  embedding_request r;
  ASSERT_FALSE(decode_embedding_request(R"({"model":"e","input":["a","b"],"dimensions":8,
    "encoding_format":"base64"})",
                                        r));
  EXPECT_EQ(r.texts.size(), 2u);
  EXPECT_EQ(r.dimensions, 8);
  EXPECT_EQ(r.encoding, embedding_encoding::base64);
  embedding_request t;
  ASSERT_FALSE(decode_embedding_request(R"({"model":"e","input":[1,2,3]})", t));
  EXPECT_EQ(t.token_ids_json, "[1,2,3]");
  for (const char* body : {R"({"model":"e","input":""})", R"({"model":"e","input":[]})",
                           R"({"model":"e","input":["a",""]})",
                           R"({"model":"e","input":"a","encoding_format":"hex"})",
                           R"({"model":"e","input":"a","dimensions":[1]})"}) {
    embedding_request bad_request;
    auto bad = decode_embedding_request(body, bad_request);
    ASSERT_TRUE(bad) << body;
    EXPECT_EQ(bad->status, 422) << body;
  }
}

} // namespace
} // namespace conch::transports::openai
