#include "conch/transports/openai/schema_reader.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "conch/transports/http/kserve/codec/json_policy.hpp"
#include "conch/transports/openai/utf8.hpp"

namespace conch::transports::openai::detail {

namespace {

// Bounds on `stop` that keep scanning a streamed text for it cheap; OpenAI
// itself takes at most 4.
constexpr size_t max_stop_sequences = 16;
constexpr size_t max_stop_bytes = 256;

// The most field errors one answer lists, and the largest offending value
// it repeats: a body of millions of bad items costs a bounded answer.
constexpr size_t max_field_errors = 100;
constexpr size_t max_error_input = 1024;

// Numbers in messages as pydantic writes them: 2, not 2.0.
std::string number_text(double d) {
  if (std::floor(d) == d && std::fabs(d) < 1e15)
    return std::to_string(static_cast<int64_t>(d));
  auto s = std::to_string(d);
  while (!s.empty() && s.back() == '0')
    s.pop_back();
  return s;
}

} // namespace

std::string json_of(const value& v) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w(out);
  if (!v.Accept(w))
    return "null";
  return {out.GetString(), out.GetSize()};
}

std::string error_input(const value& v) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w(out);
  if (!v.Accept(w) || out.GetSize() > max_error_input)
    return {};
  return {out.GetString(), out.GetSize()};
}

void add_error(std::vector<field_error>& errors, field_error e) {
  if (errors.size() < max_field_errors)
    errors.push_back(std::move(e));
}

std::optional<api_error> parse_object(std::string_view body, rapidjson::Document& doc) {
  if (!valid_utf8(body))
    return validation_failed({{"json_invalid", {"body", "0"}, "JSON decode error", ""}});
  auto parsed = http::kserve::codec::parse_json(body, doc);
  if (!parsed.is_ok())
    return validation_failed({{"json_invalid", {"body", "0"}, "JSON decode error", ""}});
  if (!doc.IsObject())
    return validation_failed(
      {{"model_attributes_type", {"body"},
        "Input should be a valid dictionary or object to extract fields from",
        error_input(doc)}});
  return std::nullopt;
}

// -- schema_reader ------------------------------------------------------------

void schema_reader::fail(const std::string& field, std::string type, std::string msg,
                         const value* input) {
  add_error(errors_, {std::move(type), loc(field), std::move(msg),
                      input != nullptr ? error_input(*input) : std::string{}});
}

void schema_reader::missing(const std::string& field, const value& object) {
  fail(field, "missing", "Field required", &object);
}

void schema_reader::extra(const std::string& field, const value& v) {
  fail(field, "extra_forbidden", "Extra inputs are not permitted", &v);
}

void schema_reader::number(const std::string& field, const value& v, double lo, double hi,
                           std::optional<double>& out) {
  if (v.IsNull()) {
    out.reset();
    return;
  }
  if (!v.IsNumber()) {
    fail(field, "float_type", "Input should be a valid number", &v);
    return;
  }
  double d = v.GetDouble();
  if (!std::isfinite(d)) {
    fail(field, "finite_number", "Input should be a finite number", &v);
    return;
  }
  if (!in_range(field, v, d, lo, hi))
    return;
  out = d;
}

void schema_reader::integer(const std::string& field, const value& v, double lo, double hi,
                            std::optional<int64_t>& out) {
  if (v.IsNull()) {
    out.reset();
    return;
  }
  int64_t i = 0;
  if (v.IsInt64()) {
    i = v.GetInt64();
  } else if (v.IsUint64()) {
    fail(field, "less_than_equal", "Input should be less than or equal to "
                                     + std::to_string(INT64_MAX), &v);
    return;
  } else if (v.IsDouble()) {
    double d = v.GetDouble();
    if (!std::isfinite(d) || std::floor(d) != d) {
      fail(field, "int_from_float",
           "Input should be a valid integer, got a number with a fractional part", &v);
      return;
    }
    if (std::fabs(d) >= 9.2e18) {
      fail(field, "int_type", "Input should be a valid integer", &v);
      return;
    }
    i = static_cast<int64_t>(d);
  } else {
    fail(field, "int_type", "Input should be a valid integer", &v);
    return;
  }
  if (!in_range(field, v, static_cast<double>(i), lo, hi))
    return;
  out = i;
}

void schema_reader::boolean(const std::string& field, const value& v, std::optional<bool>& out) {
  if (v.IsNull()) {
    out.reset();
    return;
  }
  if (!v.IsBool()) {
    fail(field, "bool_type", "Input should be a valid boolean", &v);
    return;
  }
  out = v.GetBool();
}

bool schema_reader::string(const std::string& field, const value& v, std::string& out) {
  if (v.IsNull())
    return false;
  if (!v.IsString()) {
    fail(field, "string_type", "Input should be a valid string", &v);
    return false;
  }
  out = name_of(v);
  return true;
}

bool schema_reader::object(const std::string& field, const value& v) {
  if (v.IsObject())
    return true;
  if (!v.IsNull())
    fail(field, "dict_type", "Input should be a valid dictionary", &v);
  return false;
}

void schema_reader::stop(const std::string& field, const value& v, std::vector<std::string>& out) {
  out.clear();
  if (v.IsNull())
    return;
  if (v.IsString()) {
    out.push_back(name_of(v));
    return;
  }
  if (!v.IsArray()) {
    fail(field, "string_type", "Input should be a valid string", &v);
    return;
  }
  if (v.Size() > max_stop_sequences) {
    fail(field, "too_long", "List should have at most " + std::to_string(max_stop_sequences)
                              + " items after validation, not " + std::to_string(v.Size()),
         &v);
    return;
  }
  size_t index = 0;
  for (const auto& e : v.GetArray()) {
    if (!e.IsString())
      fail_at({field, std::to_string(index)}, "string_type", "Input should be a valid string",
              e);
    else
      out.push_back(name_of(e));
    ++index;
  }
  for (const auto& s : out)
    if (s.size() > max_stop_bytes) {
      fail(field, "string_too_long", "each stop sequence may have at most "
                                       + std::to_string(max_stop_bytes) + " bytes", &v);
      out.clear();
      return;
    }
}

void schema_reader::fail_at(std::initializer_list<std::string> path, std::string type,
                            std::string msg, const value& input) {
  auto l = base_;
  l.insert(l.end(), path);
  add_error(errors_, {std::move(type), std::move(l), std::move(msg), error_input(input)});
}

bool schema_reader::in_range(const std::string& field, const value& v, double d, double lo,
                             double hi) {
  if (d < lo) {
    fail(field, "greater_than_equal", "Input should be greater than or equal to "
                                        + number_text(lo), &v);
    return false;
  }
  if (d > hi) {
    fail(field, "less_than_equal", "Input should be less than or equal to " + number_text(hi),
         &v);
    return false;
  }
  return true;
}

} // namespace conch::transports::openai::detail
