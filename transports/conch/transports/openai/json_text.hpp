#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <rapidjson/writer.h>

#include "conch/transports/openai/utf8.hpp"

namespace conch::transports::openai {

/// Writes one JSON document into a string: the OpenAI frontend's bodies and
/// stream chunks. Strings are escaped by RapidJSON, so any bytes a model or
/// a client produced come out as valid JSON text.
class json_text {
 public:
  json_text() : writer_(out_) {}
  json_text(const json_text&) = delete;
  json_text& operator=(const json_text&) = delete;

  void begin_object() { writer_.StartObject(); }
  void end_object() { writer_.EndObject(); }
  void begin_array() { writer_.StartArray(); }
  void end_array() { writer_.EndArray(); }
  /// Keys and strings: ill-formed UTF-8 (a model may write any bytes) is
  /// repaired first, so the document stays valid JSON text.
  void key(std::string_view k) {
    with_valid_utf8(k, [this](std::string_view v) { writer_.Key(v.data(), size(v)); });
  }
  void value(std::string_view s) {
    with_valid_utf8(s, [this](std::string_view v) { writer_.String(v.data(), size(v)); });
  }
  void value(const char* s) { value(std::string_view{s}); }
  void value(const std::string& s) { value(std::string_view{s}); }
  void value(int64_t i) { writer_.Int64(i); }
  void value(int i) { writer_.Int(i); }
  /// A finite number (JSON has no NaN or infinities; callers check).
  void value(double d) { writer_.Double(d); }
  void value(bool b) { writer_.Bool(b); }
  void null() { writer_.Null(); }
  /// Writes `json`, which must be one valid JSON value, as it is.
  void raw(std::string_view json) {
    writer_.RawValue(json.data(), json.size(), rapidjson::kObjectType);
  }

  template <class T>
  void member(std::string_view k, const T& v) {
    key(k);
    value(v);
  }
  void null_member(std::string_view k) {
    key(k);
    null();
  }

  /// The document written so far; the writer is done with it after this.
  std::string take() { return std::move(out_.text); }

 private:
  struct output {
    using Ch = char;
    std::string text;
    void Put(char c) { text.push_back(c); }
    void Flush() noexcept {}
  };

  template <class Write>
  static void with_valid_utf8(std::string_view s, Write&& write) {
    if (valid_utf8(s)) {
      write(s);
      return;
    }
    auto repaired = repaired_utf8(s);
    write(std::string_view{repaired});
  }

  static rapidjson::SizeType size(std::string_view s) {
    return static_cast<rapidjson::SizeType>(s.size());
  }

  output out_;
  rapidjson::Writer<output> writer_;
};

} // namespace conch::transports::openai
