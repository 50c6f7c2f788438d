#include "conch/transports/openai/tool_calls.hpp"

#include <random>

#include <rapidjson/document.h>
#include <rapidjson/encodedstream.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "conch/transports/http/kserve/codec/json_policy.hpp"

namespace conch::transports::openai {

namespace {

constexpr std::string_view python_tag = "<|python_tag|>";
constexpr std::string_view mistral_marker = "[TOOL_CALLS]";

std::string_view trim_left(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'))
    ++i;
  return s.substr(i);
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Whether `s` is a proper prefix of `marker` (could still become it).
bool could_become(std::string_view s, std::string_view marker) {
  return s.size() < marker.size() && marker.substr(0, s.size()) == s;
}

// `v` as JSON text; false when JSON cannot hold it (a NaN inside).
bool json_of(const rapidjson::Value& v, std::string& out) {
  rapidjson::StringBuffer text;
  rapidjson::Writer<rapidjson::StringBuffer> w(text);
  if (!v.Accept(w))
    return false;
  out.assign(text.GetString(), text.GetSize());
  return true;
}

std::string mistral_id() {
  static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 random{std::random_device{}()};
  std::string id;
  for (int i = 0; i < 9; ++i)
    id.push_back(alphabet[random() % (sizeof alphabet - 1)]);
  return id;
}

// One call object: a string "name" and an object "arguments" (or
// "parameters"); false for anything else.
bool read_call(const rapidjson::Value& v, tool_call_format format, tool_call& out) {
  if (!v.IsObject())
    return false;
  auto name = v.FindMember("name");
  if (name == v.MemberEnd() || !name->value.IsString())
    return false;
  auto args = v.FindMember("arguments");
  if (args == v.MemberEnd())
    args = v.FindMember("parameters");
  if (args == v.MemberEnd() || !(args->value.IsObject() || args->value.IsString()))
    return false;
  out.name.assign(name->value.GetString(), name->value.GetStringLength());
  if (args->value.IsString())
    out.arguments.assign(args->value.GetString(), args->value.GetStringLength());
  else if (!json_of(args->value, out.arguments))
    return false;
  out.id = format == tool_call_format::llama3 ? new_answer_id() : mistral_id();
  return true;
}

// Parses one JSON value at the start of `text`; the length it took, or 0.
size_t parse_prefix(std::string_view text, rapidjson::Document& doc) {
  // The parser stops after one value with kParseStopWhenDoneFlag; its
  // depth is bounded as every body's is.
  rapidjson::MemoryStream bytes(text.data(), text.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> in(bytes);
  rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>> reader;
  rapidjson::ParseResult result;
  auto parse = [&](rapidjson::Document& handler) {
    http::kserve::codec::depth_limited_handler<rapidjson::Document> limited{handler};
    result = reader.Parse<http::kserve::codec::json_parse_flags
                          | rapidjson::kParseStopWhenDoneFlag>(in, limited);
    return !result.IsError();
  };
  doc.Populate(parse);
  if (result.IsError())
    return 0;
  return in.Tell();
}

bool parse_llama3(std::string_view text, parsed_tool_calls& out) {
  if (starts_with(text, python_tag))
    text = trim_left(text.substr(python_tag.size()));
  while (!text.empty()) {
    rapidjson::Document doc;
    size_t used = parse_prefix(text, doc);
    tool_call call;
    if (used == 0 || !read_call(doc, tool_call_format::llama3, call))
      return false;
    out.calls.push_back(std::move(call));
    text = trim_left(text.substr(used));
    if (!text.empty() && text.front() == ';')
      text = trim_left(text.substr(1));
  }
  return !out.calls.empty();
}

bool parse_mistral(std::string_view text, parsed_tool_calls& out) {
  auto marker = text.find(mistral_marker);
  std::string_view calls = text;
  if (marker != std::string_view::npos) {
    out.content = std::string{text.substr(0, marker)};
    calls = trim_left(text.substr(marker + mistral_marker.size()));
  }
  rapidjson::Document doc;
  size_t used = parse_prefix(calls, doc);
  if (used == 0 || !doc.IsArray() || !trim_left(calls.substr(used)).empty())
    return false;
  for (const auto& v : doc.GetArray()) {
    tool_call call;
    if (!read_call(v, tool_call_format::mistral, call))
      return false;
    out.calls.push_back(std::move(call));
  }
  return !out.calls.empty();
}

} // namespace

runtime::result<tool_call_format> tool_call_format_named(std::string_view name) {
  if (name == "llama3")
    return tool_call_format::llama3;
  if (name == "mistral")
    return tool_call_format::mistral;
  return runtime::invalid_argument("tool parser: '" + std::string{name}
                                   + "' not found in tool_call_parsers");
}

tool_call_start classify_tool_call(tool_call_format format, std::string_view text) {
  text = trim_left(text);
  if (text.empty())
    return tool_call_start::maybe;
  if (format == tool_call_format::llama3) {
    if (text.front() == '{' || starts_with(text, python_tag))
      return tool_call_start::yes;
    return could_become(text, python_tag) ? tool_call_start::maybe : tool_call_start::no;
  }
  if (text.front() == '[' && !could_become(text, mistral_marker)
      && !starts_with(text, mistral_marker))
    return tool_call_start::yes;  // a bare JSON array
  if (starts_with(text, mistral_marker))
    return tool_call_start::yes;
  return could_become(text, mistral_marker) ? tool_call_start::maybe : tool_call_start::no;
}

parsed_tool_calls parse_tool_calls(tool_call_format format, std::string_view text) {
  parsed_tool_calls out;
  std::string_view body = trim_left(text);
  bool ok = format == tool_call_format::llama3 ? parse_llama3(body, out)
                                               : parse_mistral(body, out);
  if (!ok) {
    out.calls.clear();
    out.content = std::string{text};
  }
  return out;
}

std::string tool_call_reader::feed(std::string_view piece) {
  if (mode_ == mode::content)
    return std::string{piece};
  held_.append(piece);
  if (mode_ == mode::undecided) {
    // Leading whitespace is skipped once, not at every piece.
    while (skipped_ < held_.size()
           && (held_[skipped_] == ' ' || held_[skipped_] == '\n' || held_[skipped_] == '\t'
               || held_[skipped_] == '\r'))
      ++skipped_;
    switch (classify_tool_call(format_, std::string_view{held_}.substr(skipped_))) {
      case tool_call_start::no: {
        mode_ = mode::content;
        std::string out;
        out.swap(held_);
        return out;
      }
      case tool_call_start::yes: mode_ = mode::calls; break;
      case tool_call_start::maybe: break;
    }
  }
  return {};
}

void tool_call_reader::scan() {
  const int call_depth = format_ == tool_call_format::llama3 ? 1 : 2;
  if (scanned_ < skipped_)
    scanned_ = skipped_;
  for (; scanned_ < held_.size(); ++scanned_) {
    const char c = held_[scanned_];
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
        if (depth_ != call_depth || calls_.empty())
          continue;
        auto& call = calls_.back();
        std::string_view text{held_.data() + string_begin_ + 1, scanned_ - string_begin_ - 1};
        if (expect_ == expect::key) {
          key_.assign(text);
          expect_ = expect::colon;
        } else if (expect_ == expect::value) {
          if (key_ == "name" && !call.name_known) {
            // A name with escapes is read by the parser at the end.
            if (text.find('\\') == std::string_view::npos) {
              call.name.assign(text);
              call.name_known = true;
            }
          } else if (call.args_begin == string_begin_) {
            call.args_end = scanned_ + 1;
          }
          expect_ = expect::after;
        }
      }
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
      continue;
    if (await_args_ && depth_ == call_depth && !calls_.empty()) {
      // The first byte of the arguments' value.
      calls_.back().args_begin = scanned_;
      calls_.back().args_string = c == '"';
      await_args_ = false;
    }
    switch (c) {
      case '"':
        in_string_ = true;
        string_begin_ = scanned_;
        break;
      case '{':
      case '[':
        ++depth_;
        if (depth_ == call_depth && c == '{') {
          calls_.emplace_back();
          calls_.back().id = format_ == tool_call_format::llama3 ? new_answer_id() : mistral_id();
          expect_ = expect::key;
        }
        break;
      case '}':
      case ']':
        if (depth_ == call_depth + 1 && !calls_.empty()
            && calls_.back().args_begin != std::string::npos
            && calls_.back().args_end == std::string::npos)
          calls_.back().args_end = scanned_ + 1;
        if (depth_ > 0)
          --depth_;
        if (depth_ == call_depth)
          expect_ = expect::after;
        break;
      case ':':
        if (depth_ == call_depth && expect_ == expect::colon) {
          expect_ = expect::value;
          await_args_ = key_ == "arguments" || key_ == "parameters";
        }
        break;
      case ',':
        if (depth_ == call_depth)
          expect_ = expect::key;
        break;
      default:
        break;
    }
  }
}

std::vector<tool_call_delta> tool_call_reader::deltas() {
  std::vector<tool_call_delta> out;
  if (mode_ != mode::calls)
    return out;
  scan();
  for (size_t i = 0; i < calls_.size(); ++i) {
    auto& call = calls_[i];
    if (!call.name_known || call.args_string)
      continue;
    size_t from = call.args_begin == std::string::npos ? 0 : call.args_begin + call.args_sent;
    size_t to = call.args_begin == std::string::npos
                  ? 0
                  : std::min(call.args_end == std::string::npos ? scanned_ : call.args_end,
                             scanned_);
    std::string piece = to > from ? held_.substr(from, to - from) : std::string{};
    if (call.sent_first && piece.empty())
      continue;
    tool_call_delta d;
    d.index = static_cast<int>(i);
    d.first = !call.sent_first;
    d.id = call.id;
    d.name = call.name;
    d.arguments = std::move(piece);
    call.args_sent += d.arguments.size();
    call.sent_first = true;
    streamed_ = true;
    out.push_back(std::move(d));
  }
  return out;
}

parsed_tool_calls tool_call_reader::finish() {
  std::string text;
  text.swap(held_);
  if (mode_ != mode::calls) {
    mode_ = mode::content;
    return {std::move(text), {}};
  }
  mode_ = mode::content;
  return parse_tool_calls(format_, text);
}

} // namespace conch::transports::openai
