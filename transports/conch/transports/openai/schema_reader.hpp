#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rapidjson/document.h>

#include "conch/transports/openai/api_error.hpp"

namespace conch::transports::openai::detail {

// What the decoders of the OpenAI request bodies (decode_requests.hpp) share
// to check a body against OpenAI's schema and report each field it got wrong
// as FastAPI does. Not part of the frontend's interface.

using value = rapidjson::Value;

/// The bounds of a 64-bit integer field, as doubles.
inline constexpr double int64_lo = -9223372036854775808.0;
inline constexpr double int64_hi = 9223372036854775807.0;

/// `v` as JSON text; "null" for a value JSON cannot hold (a NaN inside).
std::string json_of(const value& v);

/// The offending value as a field error repeats it; empty (left out) when it
/// is too large or not writable as JSON (a NaN).
std::string error_input(const value& v);

/// Appends `e` to `errors` unless they already hold as many as one answer
/// lists.
void add_error(std::vector<field_error>& errors, field_error e);

/// A JSON string (or member name) as a std::string.
inline std::string name_of(const value& key) { return {key.GetString(), key.GetStringLength()}; }

/// The member `key` of `v`; null when `v` is no object or has none. (Any
/// other JSON value has no member iterators: rapidjson's MemberEnd() on one
/// is undefined.)
inline const value* member(const value& v, const char* key) {
  if (!v.IsObject())
    return nullptr;
  auto it = v.FindMember(key);
  return it == v.MemberEnd() ? nullptr : &it->value;
}

/// Parses `body` as one JSON object into `doc`; the 422 FastAPI answers
/// otherwise.
std::optional<api_error> parse_object(std::string_view body, rapidjson::Document& doc);

/// Reads the fields of one JSON object against a schema, collecting every
/// error as FastAPI does, with each field's location under `base`. Keeps a
/// reference to `errors`, which must outlive it.
class schema_reader {
 public:
  schema_reader(std::vector<field_error>& errors, std::vector<std::string> base)
    : errors_(errors), base_(std::move(base)) {}

  /// The location of `field`: `base` and the field's name.
  std::vector<std::string> loc(const std::string& field) const {
    auto l = base_;
    l.push_back(field);
    return l;
  }

  /// Records an error of `type` at `field`, repeating `input` (nullptr: none).
  void fail(const std::string& field, std::string type, std::string msg, const value* input);

  /// Records that the required `field` of `object` is absent.
  void missing(const std::string& field, const value& object);

  /// Records that `field`, which the schema does not have, is present.
  void extra(const std::string& field, const value& v);

  /// A number in [lo, hi]; null leaves `out` unset.
  void number(const std::string& field, const value& v, double lo, double hi,
              std::optional<double>& out);

  /// An integer in [lo, hi]; a float without a fraction counts, as pydantic
  /// takes it. Null leaves `out` unset.
  void integer(const std::string& field, const value& v, double lo, double hi,
               std::optional<int64_t>& out);

  /// A boolean; null leaves `out` unset.
  void boolean(const std::string& field, const value& v, std::optional<bool>& out);

  /// A string; null leaves `out` unset and returns false, as does a wrong type.
  bool string(const std::string& field, const value& v, std::string& out);

  /// True for an object; anything but an object or null is an error.
  bool object(const std::string& field, const value& v);

  /// `stop`: a string or a list of strings.
  void stop(const std::string& field, const value& v, std::vector<std::string>& out);

  /// Records an error at `path` under `base` (a list item, a nested field).
  void fail_at(std::initializer_list<std::string> path, std::string type, std::string msg,
               const value& input);

  /// True while no error has been recorded.
  bool clean() const { return errors_.empty(); }

 private:
  bool in_range(const std::string& field, const value& v, double d, double lo, double hi);

  std::vector<field_error>& errors_;
  std::vector<std::string> base_;
};

} // namespace conch::transports::openai::detail
