#include "conch/transports/openai/tool_calls.hpp"

#include <gtest/gtest.h>

namespace conch::transports::openai {
namespace {

TEST(tool_calls, llama3_reads_consecutive_json_calls) {
  auto p = parse_tool_calls(
    tool_call_format::llama3,
    R"(<|python_tag|>{"name": "a", "parameters": {"x": 1}}; {"name": "b", "arguments": {}})");
  ASSERT_EQ(p.calls.size(), 2u);
  EXPECT_EQ(p.calls[0].name, "a");
  EXPECT_EQ(p.calls[0].arguments, R"({"x":1})");
  EXPECT_EQ(p.calls[1].name, "b");
  EXPECT_EQ(p.calls[0].id.rfind("cmpl-", 0), 0u);
  EXPECT_EQ(p.content, "");
}

TEST(tool_calls, mistral_reads_its_marker_and_array) {
  auto p = parse_tool_calls(tool_call_format::mistral,
                            R"(Sure. [TOOL_CALLS] [{"name": "f", "arguments": {"q": "é"}}])");
  ASSERT_EQ(p.calls.size(), 1u);
  EXPECT_EQ(p.calls[0].name, "f");
  EXPECT_EQ(p.calls[0].arguments, R"({"q":"é"})");
  EXPECT_EQ(p.calls[0].id.size(), 9u);
  EXPECT_EQ(p.content, "Sure. ");
}

TEST(tool_calls, text_that_is_no_call_comes_back_as_content) {
  for (auto format : {tool_call_format::llama3, tool_call_format::mistral})
    for (const char* text : {"plain words", R"({"name": 3})", "{ broken", "[1, 2]",
                             R"({"name": "f", "parameters": {}} trailing)"}) {
      auto p = parse_tool_calls(format, text);
      EXPECT_TRUE(p.calls.empty()) << text;
      EXPECT_EQ(p.content, text);
    }
}

TEST(tool_calls, classify_looks_only_at_the_start) {
  EXPECT_EQ(classify_tool_call(tool_call_format::llama3, "  "), tool_call_start::maybe);
  EXPECT_EQ(classify_tool_call(tool_call_format::llama3, "<|py"), tool_call_start::maybe);
  EXPECT_EQ(classify_tool_call(tool_call_format::llama3, " {\"na"), tool_call_start::yes);
  EXPECT_EQ(classify_tool_call(tool_call_format::llama3, "Hello"), tool_call_start::no);
  EXPECT_EQ(classify_tool_call(tool_call_format::mistral, "[TOOL"), tool_call_start::maybe);
  EXPECT_EQ(classify_tool_call(tool_call_format::mistral, "[TOOL_CALLS]"), tool_call_start::yes);
  EXPECT_EQ(classify_tool_call(tool_call_format::mistral, "[{"), tool_call_start::yes);
  EXPECT_EQ(classify_tool_call(tool_call_format::mistral, "No"), tool_call_start::no);
}

TEST(tool_calls, the_reader_holds_a_call_and_passes_content_on) {
  tool_call_reader calls{tool_call_format::llama3, 1024};
  EXPECT_EQ(calls.feed("{\"name\": \"f\", "), "");
  EXPECT_EQ(calls.feed("\"parameters\": {\"a\": true}}"), "");
  EXPECT_TRUE(calls.holding());
  auto p = calls.finish();
  ASSERT_EQ(p.calls.size(), 1u);
  EXPECT_EQ(p.calls[0].arguments, R"({"a":true})");

  tool_call_reader words{tool_call_format::llama3, 1024};
  EXPECT_EQ(words.feed("<|"), "");
  EXPECT_EQ(words.feed("x hello"), "<|x hello");
  EXPECT_FALSE(words.holding());
  EXPECT_EQ(words.feed(" more"), " more");
}

TEST(tool_calls, the_reader_overflows_past_its_limit) {
  tool_call_reader r{tool_call_format::llama3, 16};
  r.feed("{\"name\": \"f\",");
  EXPECT_FALSE(r.overflowed());
  r.feed(" \"parameters\": {}}");
  EXPECT_TRUE(r.overflowed());
}

TEST(tool_calls, arguments_json_cannot_hold_are_no_call) {
  auto p = parse_tool_calls(tool_call_format::llama3, R"({"name": "f", "parameters": {"x": NaN}})");
  EXPECT_TRUE(p.calls.empty());
}

TEST(tool_calls, leading_whitespace_is_looked_at_once) {
  tool_call_reader r{tool_call_format::llama3, 1 << 20};
  for (int i = 0; i < 100000; ++i)
    EXPECT_EQ(r.feed(" "), "");
  EXPECT_TRUE(r.holding());
  EXPECT_EQ(r.feed("x"), std::string(100000, ' ') + "x");
  EXPECT_FALSE(r.holding());
}

TEST(tool_calls, unknown_parsers_are_named) {
  EXPECT_TRUE(tool_call_format_named("llama3"));
  auto bad = tool_call_format_named("hermes");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "tool parser: 'hermes' not found in tool_call_parsers");
}

} // namespace
} // namespace conch::transports::openai

namespace conch::transports::openai {
namespace {

// Feeds `text` in pieces of `size` and gathers the streamed deltas.
std::vector<tool_call_delta> stream(tool_call_format format, const std::string& text,
                                    size_t size) {
  tool_call_reader r{format, 1 << 20};
  std::vector<tool_call_delta> all;
  for (size_t at = 0; at < text.size(); at += size) {
    EXPECT_EQ(r.feed(text.substr(at, size)), "");
    for (auto& d : r.deltas())
      all.push_back(std::move(d));
  }
  return all;
}

TEST(tool_call_stream, llama3_arguments_come_piece_by_piece) {
  const std::string text =
    R"({"name": "weather", "parameters": {"city": "Oslo", "note": "a } in \"quotes\""}})";
  for (size_t size : {1u, 3u, 7u, 100u}) {
    auto deltas = stream(tool_call_format::llama3, text, size);
    ASSERT_FALSE(deltas.empty()) << size;
    EXPECT_TRUE(deltas[0].first);
    EXPECT_EQ(deltas[0].name, "weather");
    std::string args;
    for (const auto& d : deltas) {
      EXPECT_EQ(d.index, 0);
      args += d.arguments;
    }
    EXPECT_EQ(args, R"({"city": "Oslo", "note": "a } in \"quotes\""})") << size;
    if (size == 1) {
      EXPECT_GT(deltas.size(), 10u);  // streamed, not sent whole
    }
  }
}

TEST(tool_call_stream, arguments_before_the_name_wait_for_it) {
  auto deltas = stream(tool_call_format::llama3,
                       R"({"arguments": {"x": [1, 2]}, "name": "f"}; {"name": "g", "arguments": {}})",
                       4);
  std::string f_args, g_args;
  for (const auto& d : deltas)
    (d.index == 0 ? f_args : g_args) += d.arguments;
  EXPECT_EQ(f_args, R"({"x": [1, 2]})");
  EXPECT_EQ(g_args, "{}");
  EXPECT_EQ(deltas.back().index, 1);
}

TEST(tool_call_stream, mistral_calls_in_their_array) {
  auto deltas = stream(
    tool_call_format::mistral,
    R"([TOOL_CALLS] [{"name": "a", "arguments": {"k": 1}}, {"name": "b", "arguments": {"k": 2}}])",
    5);
  std::string a, b;
  for (const auto& d : deltas)
    (d.index == 0 ? a : b) += d.arguments;
  EXPECT_EQ(a, R"({"k": 1})");
  EXPECT_EQ(b, R"({"k": 2})");
  EXPECT_EQ(deltas[0].id.size(), 9u);
}

} // namespace
} // namespace conch::transports::openai
