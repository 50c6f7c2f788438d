#include "conch/transports/openai/encode_responses.hpp"

#include <rapidjson/document.h>

#include <gtest/gtest.h>

#include "conch/runtime/bytes_elements.hpp"

namespace conch::transports::openai {
namespace {

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

const answer_header header{"cmpl-1", 1700000000, "m"};

TEST(encode_responses, a_completion_has_every_field_nulls_included) {
  auto d = parse(completion_body(header, "a \"quoted\"\n text", "stop", usage_counts{3, 4}));
  EXPECT_STREQ(d["object"].GetString(), "text_completion");
  EXPECT_STREQ(d["choices"][0]["text"].GetString(), "a \"quoted\"\n text");
  EXPECT_TRUE(d["choices"][0]["logprobs"].IsNull());
  EXPECT_TRUE(d["system_fingerprint"].IsNull());
  EXPECT_EQ(d["usage"]["total_tokens"].GetInt(), 7);
  auto n = parse(completion_body(header, "", "stop", std::nullopt));
  EXPECT_TRUE(n["usage"].IsNull());
}

TEST(encode_responses, chat_bodies_and_chunks_follow_openai) {
  auto d = parse(chat_body(header, "", {{"call-1", "f", R"({"a":1})"}}, "tool_calls", {}));
  EXPECT_STREQ(d["object"].GetString(), "chat.completion");
  const auto& m = d["choices"][0]["message"];
  EXPECT_STREQ(m["role"].GetString(), "assistant");
  EXPECT_STREQ(m["tool_calls"][0]["function"]["arguments"].GetString(), R"({"a":1})");
  auto first = parse(chat_role_chunk(header));
  EXPECT_STREQ(first["choices"][0]["delta"]["role"].GetString(), "assistant");
  auto last = parse(chat_content_chunk(header, "x", std::string_view{"stop"}));
  EXPECT_STREQ(last["choices"][0]["finish_reason"].GetString(), "stop");
  EXPECT_STREQ(last["object"].GetString(), "chat.completion.chunk");
  auto tools = parse(chat_tool_chunk(header, {{0, true, "id", "f", "{"}}, std::nullopt));
  EXPECT_STREQ(tools["choices"][0]["delta"]["tool_calls"][0]["function"]["name"].GetString(),
               "f");
  auto usage = parse(usage_chunk_body(header, "chat.completion.chunk", {1, 2}));
  EXPECT_TRUE(usage["choices"].Empty());
  EXPECT_EQ(usage["usage"]["completion_tokens"].GetInt(), 2);
}

TEST(encode_responses, events_and_ids) {
  EXPECT_EQ(sse_event("{}"), "data: {}\n\n");
  EXPECT_EQ(sse_done(), "data: [DONE]\n\n");
  auto a = new_answer_id();
  EXPECT_EQ(a.rfind("cmpl-", 0), 0u);
  EXPECT_EQ(a.size(), 5u + 36u);
  EXPECT_NE(a, new_answer_id());
  auto list = parse(model_list({"a", "b"}, 5));
  EXPECT_EQ(list["data"].Size(), 2u);
  EXPECT_STREQ(list["data"][1]["owned_by"].GetString(), "Triton Inference Server");
}

TEST(generation_output, reads_text_and_counts_and_sums_a_stream) {
  runtime::inference_response r;
  std::string text;
  runtime::append_bytes_element(text, "hello");
  r.outputs.push_back({"text_output", runtime::data_type::bytes, {1},
                       runtime::buffer::copy_of(text.data(), text.size())});
  int32_t in = 4;
  uint64_t out = 2;
  r.outputs.push_back({"num_input_tokens", runtime::data_type::int32, {1},
                       runtime::buffer::copy_of(&in, sizeof in)});
  r.outputs.push_back({"num_output_tokens", runtime::data_type::uint64, {1},
                       runtime::buffer::copy_of(&out, sizeof out)});
  auto g = read_generation(r);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->text, "hello");
  usage_tally tally;
  tally.add(*g);
  tally.add(*g);
  ASSERT_TRUE(tally.counts());
  EXPECT_EQ(tally.counts()->prompt, 4);
  EXPECT_EQ(tally.counts()->completion, 4);

  runtime::inference_response two;
  std::string texts;
  runtime::append_bytes_element(texts, "a");
  runtime::append_bytes_element(texts, "b");
  two.outputs.push_back({"text_output", runtime::data_type::bytes, {2},
                         runtime::buffer::copy_of(texts.data(), texts.size())});
  auto bad = read_generation(two);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "Expected to find 1 string in the output, found 2 instead.");
}

} // namespace
} // namespace conch::transports::openai
