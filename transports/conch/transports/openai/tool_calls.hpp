#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/result.hpp"
#include "conch/transports/openai/encode_responses.hpp"

namespace conch::transports::openai {

/// How a model writes the tool calls it makes, as Triton's frontend names
/// the parsers that read them (--tool-call-parser).
enum class tool_call_format {
  /// Llama 3's JSON: `{"name": ..., "parameters": {...}}` objects, after an
  /// optional `<|python_tag|>`, separated by "; ".
  llama3,
  /// Mistral's: `[TOOL_CALLS]` and a JSON array of `{"name", "arguments"}`.
  mistral,
};

/// The format a parser name names; INVALID_ARG in Triton's words for any
/// other ("tool parser: 'x' not found in tool_call_parsers").
runtime::result<tool_call_format> tool_call_format_named(std::string_view name);

/// Whether a text the model has begun to write is a tool call in a format.
enum class tool_call_start {
  /// It is not: what the model writes is plain content.
  no,
  /// It may still become one: too short to tell.
  maybe,
  /// It begins as a tool call does.
  yes,
};

/// Reads how `text` (the model's answer so far, leading whitespace
/// ignored) begins. Constant work: only the first bytes are looked at.
tool_call_start classify_tool_call(tool_call_format format, std::string_view text);

/// The calls in a whole answer, and the content beside them (what comes
/// before Mistral's marker; nothing for Llama 3's).
struct parsed_tool_calls {
  std::string content;
  std::vector<tool_call> calls;
};

/// Parses a whole answer. When it does not hold well-formed calls, the
/// result has no calls and the whole text as content, as Triton's parsers
/// fall back. Each call's arguments are the JSON text of its arguments
/// object; ids are new (Llama 3: "cmpl-<uuid>", Mistral: 9 letters and
/// digits). Linear in the text (iterative parsing, bounded depth).
parsed_tool_calls parse_tool_calls(tool_call_format format, std::string_view text);

/// Reads a streamed answer for tool calls: text that begins as a call (or
/// may still) is held back and scanned as it comes, so that each call's
/// name and the pieces of its arguments can be streamed as they arrive
/// (deltas()); text that does not is passed on as content at once. At most
/// `limit` bytes are held (--max-tool-call-parse-bytes); past it the reader
/// overflows and the answer should end with finish_reason "length". Work
/// is linear in the text: each byte is scanned once.
class tool_call_reader {
 public:
  tool_call_reader(tool_call_format format, size_t limit) : format_(format), limit_(limit) {}

  /// Takes the next piece of the answer; returns what may go out now as
  /// content ("" while the text is held).
  std::string feed(std::string_view piece);

  /// The pieces of calls that may go out now: a call's first delta once its
  /// name is known (id, type, name and what of its arguments has come),
  /// then each new piece of its arguments' JSON text as the model wrote it.
  std::vector<tool_call_delta> deltas();

  /// True once some call went out through deltas().
  bool streamed() const noexcept { return streamed_; }

  /// True while text is held as a call (or a possible one).
  bool holding() const noexcept { return mode_ != mode::content; }

  /// True once the held text passed the limit.
  bool overflowed() const noexcept { return held_.size() > limit_; }

  /// The answer has ended: the calls in the held text, or the held text as
  /// content when it holds none. (A stream that streamed() its calls takes
  /// their last pieces from deltas() first.)
  parsed_tool_calls finish();

 private:
  enum class mode { undecided, calls, content };

  // One call object as the scanner found it; positions index held_.
  struct call_scan {
    std::string id;
    std::string name;
    bool name_known = false;
    bool sent_first = false;
    size_t args_begin = std::string::npos;  // first byte of the arguments' value
    size_t args_end = std::string::npos;    // one past its last
    bool args_string = false;               // given as a JSON string: not streamed
    size_t args_sent = 0;                   // bytes of the arguments sent
  };

  void scan();

  tool_call_format format_;
  size_t limit_;
  mode mode_ = mode::undecided;
  std::string held_;
  size_t skipped_ = 0;  // leading whitespace of held_ already looked at
  bool streamed_ = false;

  // The scanner: a JSON lexer over held_ that knows the keys of each call
  // object (at depth 1 for Llama 3's objects, 2 inside Mistral's array).
  std::vector<call_scan> calls_;
  size_t scanned_ = 0;
  int depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
  size_t string_begin_ = 0;
  enum class expect { key, colon, value, after };
  expect expect_ = expect::after;
  std::string key_;
  bool await_args_ = false;  // the arguments' value begins at the next token
};

} // namespace conch::transports::openai
