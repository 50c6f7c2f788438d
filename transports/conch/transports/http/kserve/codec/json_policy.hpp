#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <rapidjson/document.h>
#include <rapidjson/encodedstream.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include "conch/runtime/status.hpp"

namespace conch::transports::http::kserve::codec {

// The one way the server reads a JSON body: the inference header, generate
// bodies and every settings, repository and shared-memory body go through
// parse_json below. Parsing is iterative, so the parser's depth costs heap,
// never stack, and no document deeper than max_json_depth is ever built, so
// code that walks a parsed document recursively is bounded by that depth.

/// The deepest nesting of arrays and objects accepted in a request body, as
/// Triton caps it; the outermost array or object is level 1.
inline constexpr int max_json_depth = 100;

/// The rapidjson flags of every parse: iterative, and NaN and Infinity
/// accepted as numbers (as Triton's parser does).
inline constexpr unsigned json_parse_flags =
  rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag;

/// A SAX handler that passes every event on to `Handler` (a document being
/// built) and stops the parse once arrays and objects nest deeper than
/// max_json_depth. Counting costs one integer; nothing is allocated.
template <class Handler>
class depth_limited_handler {
 public:
  using Ch = typename Handler::Ch;
  using size_type = rapidjson::SizeType;

  explicit depth_limited_handler(Handler& next) noexcept : next_(next) {}

  // -- the SAX events --------------------------------------------------------

  bool Null() { return next_.Null(); }
  bool Bool(bool b) { return next_.Bool(b); }
  bool Int(int i) { return next_.Int(i); }
  bool Uint(unsigned u) { return next_.Uint(u); }
  bool Int64(int64_t i) { return next_.Int64(i); }
  bool Uint64(uint64_t u) { return next_.Uint64(u); }
  bool Double(double d) { return next_.Double(d); }
  bool RawNumber(const Ch* s, size_type n, bool copy) { return next_.RawNumber(s, n, copy); }
  bool String(const Ch* s, size_type n, bool copy) { return next_.String(s, n, copy); }
  bool Key(const Ch* s, size_type n, bool copy) { return next_.Key(s, n, copy); }
  bool StartObject() { return enter() && next_.StartObject(); }
  bool EndObject(size_type members) { return leave() && next_.EndObject(members); }
  bool StartArray() { return enter() && next_.StartArray(); }
  bool EndArray(size_type elements) { return leave() && next_.EndArray(elements); }

  // -- the outcome -----------------------------------------------------------

  /// True when the parse stopped because the nesting went too deep.
  bool too_deep() const noexcept { return too_deep_; }

 private:
  bool enter() noexcept {
    too_deep_ = ++depth_ > max_json_depth;
    return !too_deep_;
  }

  bool leave() noexcept {
    --depth_;
    return true;
  }

  Handler& next_;
  int depth_ = 0;
  bool too_deep_ = false;
};

/// invalid_argument "failed to parse the request JSON buffer: <reason> at
/// <offset>"; the reason names max_json_depth when `too_deep`.
runtime::status json_parse_error(rapidjson::ParseErrorCode code, size_t offset, bool too_deep);

/// Parses `text` (not NUL-terminated) into `doc` under the policy above.
/// The parser's own stack takes its memory from `stack` (pass the allocator
/// a pooled document's stack uses, to keep the parse off the heap); null
/// uses a fresh one. On failure `doc` is left as it was and the status is
/// json_parse_error's.
template <class Encoding, class Allocator, class StackAllocator>
runtime::status parse_json(std::string_view text,
                           rapidjson::GenericDocument<Encoding, Allocator, StackAllocator>& doc,
                           StackAllocator* stack = nullptr) {
  using document = rapidjson::GenericDocument<Encoding, Allocator, StackAllocator>;
  rapidjson::MemoryStream bytes(text.data(), text.size());
  rapidjson::EncodedInputStream<Encoding, rapidjson::MemoryStream> in(bytes);
  StackAllocator own_stack;
  rapidjson::GenericReader<Encoding, Encoding, StackAllocator> reader(
    stack != nullptr ? stack : &own_stack);
  rapidjson::ParseResult result;
  bool too_deep = false;
  auto parse = [&](document& handler) {
    depth_limited_handler<document> limited{handler};
    result = reader.template Parse<json_parse_flags>(in, limited);
    too_deep = limited.too_deep();
    return !result.IsError();
  };
  doc.Populate(parse);
  if (!result.IsError())
    return runtime::status::ok();
  return json_parse_error(result.Code(), result.Offset(), too_deep);
}

} // namespace conch::transports::http::kserve::codec
