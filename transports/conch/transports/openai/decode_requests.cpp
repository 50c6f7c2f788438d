#include "conch/transports/openai/decode_requests.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "conch/transports/openai/schema_reader.hpp"
#include "conch/transports/openai/shared_fields.hpp"

// decode_chat_request is in decode_chat.cpp; the schema checks the decoders
// share are in schema_reader.hpp and shared_fields.hpp.

namespace conch::transports::openai {

using detail::int64_hi;
using detail::json_of;
using detail::name_of;
using detail::parse_object;
using detail::schema_defaults;
using detail::schema_reader;
using detail::shared_fields;

namespace {

// The most inputs one embeddings request may hold (OpenAI's own limit): each
// text is an inference request of its own.
constexpr size_t max_embedding_inputs = 2048;

} // namespace

std::optional<api_error> decode_completion_request(std::string_view body,
                                                   completion_request& out) {
  rapidjson::Document doc;
  if (auto bad = parse_object(body, doc))
    return bad;
  std::vector<field_error> errors;
  shared_fields shared{errors, out.settings};
  schema_reader& r = shared.r;
  schema_defaults(out.settings, 1.0);
  bool has_prompt = false;
  bool single_prompt = false;
  bool suffix = false;
  std::optional<int64_t> logprobs;
  std::optional<bool> echo;
  for (const auto& m : doc.GetObject()) {
    auto name = name_of(m.name);
    const auto& v = m.value;
    if (shared.read(name, v))
      continue;
    if (name == "prompt") {
      has_prompt = true;
      if (v.IsString()) {
        single_prompt = true;
        out.prompt = name_of(v);
      } else if (!v.IsArray()) {
        r.fail(name, "string_type", "Input should be a valid string", &v);
      }
    } else if (name == "best_of") {
      r.integer(name, v, 0, 20, shared.best_of);
    } else if (name == "echo") {
      r.boolean(name, v, echo);
    } else if (name == "logprobs") {
      r.integer(name, v, 0, 5, logprobs);
    } else if (name == "suffix") {
      std::string s;
      suffix = r.string(name, v, s);
    } else {
      r.extra(name, v);
    }
  }
  shared.require_model(doc);
  if (!has_prompt)
    r.missing("prompt", doc);
  if (!errors.empty())
    return validation_failed(errors);
  if (auto refused = shared.refuse_unserved("logit bias is not supported"))
    return refused;
  if (suffix)
    return detail_error(400, "suffix is not currently supported");
  if (!single_prompt)
    return detail_error(400, "only single string input is supported");
  if (out.prompt.empty())
    return detail_error(400, "prompt must be non-empty");
  // As Triton's frontend: logprobs 0 asks for none.
  if (logprobs && *logprobs > 0)
    out.settings.logprobs = logprobs;
  out.settings.echo = echo;
  shared.finish();
  return std::nullopt;
}

std::optional<api_error> decode_embedding_request(std::string_view body,
                                                  embedding_request& out) {
  rapidjson::Document doc;
  if (auto bad = parse_object(body, doc))
    return bad;
  std::vector<field_error> errors;
  schema_reader r{errors, {"body"}};
  bool has_model = false;
  bool has_input = false;
  for (const auto& m : doc.GetObject()) {
    auto name = name_of(m.name);
    const auto& v = m.value;
    if (name == "model") {
      has_model = true;
      r.string(name, v, out.model);
    } else if (name == "input") {
      has_input = true;
      if (v.IsString()) {
        if (v.GetStringLength() == 0)
          r.fail(name, "string_too_short", "String should have at least 1 character", &v);
        out.texts.push_back(name_of(v));
      } else if (v.IsArray() && !v.Empty() && v[0].IsString()
                 && v.Size() > max_embedding_inputs) {
        r.fail(name, "too_long", "List should have at most "
                                   + std::to_string(max_embedding_inputs)
                                   + " items after validation, not " + std::to_string(v.Size()),
               &v);
      } else if (v.IsArray() && !v.Empty() && v[0].IsString()) {
        size_t index = 0;
        for (const auto& e : v.GetArray()) {
          auto at = std::to_string(index++);
          if (!e.IsString())
            r.fail_at({name, at}, "string_type", "Input should be a valid string", e);
          else if (e.GetStringLength() == 0)
            r.fail_at({name, at}, "string_too_short", "String should have at least 1 character",
                      e);
          else
            out.texts.push_back(name_of(e));
        }
      } else if (v.IsArray() && !v.Empty()) {
        size_t index = 0;
        for (const auto& e : v.GetArray()) {
          if (!e.IsInt64())
            r.fail_at({name, std::to_string(index)}, "int_type",
                      "Input should be a valid integer", e);
          ++index;
        }
        out.token_ids_json = json_of(v);
      } else if (v.IsArray()) {
        r.fail(name, "too_short", "List should have at least 1 item after validation, not 0",
               &v);
      } else {
        r.fail(name, "string_type", "Input should be a valid string", &v);
      }
    } else if (name == "dimensions") {
      r.integer(name, v, 1, int64_hi, out.dimensions);
    } else if (name == "encoding_format") {
      std::string format;
      if (r.string(name, v, format)) {
        if (format == "float")
          out.encoding = embedding_encoding::floats;
        else if (format == "base64")
          out.encoding = embedding_encoding::base64;
        else
          r.fail(name, "literal_error", "Input should be 'float' or 'base64'", &v);
      }
    } else if (name == "user") {
      r.string(name, v, out.user);
    } else {
      r.extra(name, v);
    }
  }
  if (!has_model)
    r.missing("model", doc);
  if (!has_input)
    r.missing("input", doc);
  if (!errors.empty())
    return validation_failed(errors);
  return std::nullopt;
}

} // namespace conch::transports::openai
