#include "conch/transports/openai/decode_requests.hpp"

#include <cmath>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/writer.h>

#include "conch/transports/http/kserve/codec/json_policy.hpp"
#include "conch/transports/openai/utf8.hpp"

namespace conch::transports::openai {

namespace {

using value = rapidjson::Value;

// Bounds on `stop` that keep scanning a streamed text for it cheap; OpenAI
// itself takes at most 4.
constexpr size_t max_stop_sequences = 16;
constexpr size_t max_stop_bytes = 256;

// The most inputs one embeddings request may hold (OpenAI's own limit): each
// text is an inference request of its own.
constexpr size_t max_embedding_inputs = 2048;

// `v` as JSON text; "null" for a value JSON cannot hold (a NaN inside).
std::string json_of(const value& v) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w(out);
  if (!v.Accept(w))
    return "null";
  return {out.GetString(), out.GetSize()};
}

// The most field errors one answer lists, and the largest offending value
// it repeats: a body of millions of bad items costs a bounded answer.
constexpr size_t max_field_errors = 100;
constexpr size_t max_error_input = 1024;

// The offending value as the error repeats it; empty (left out) when it is
// too large or not writable as JSON (a NaN).
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

std::string name_of(const value& key) { return {key.GetString(), key.GetStringLength()}; }

// Numbers in messages as pydantic writes them: 2, not 2.0.
std::string number_text(double d) {
  if (std::floor(d) == d && std::fabs(d) < 1e15)
    return std::to_string(static_cast<int64_t>(d));
  auto s = std::to_string(d);
  while (!s.empty() && s.back() == '0')
    s.pop_back();
  return s;
}

// Reads the fields of one JSON object against a schema, collecting every
// error as FastAPI does, with each field's location under `base`.
class schema_reader {
 public:
  schema_reader(std::vector<field_error>& errors, std::vector<std::string> base)
    : errors_(errors), base_(std::move(base)) {}

  std::vector<std::string> loc(const std::string& field) const {
    auto l = base_;
    l.push_back(field);
    return l;
  }

  void fail(const std::string& field, std::string type, std::string msg, const value* input) {
    add_error(errors_, {std::move(type), loc(field), std::move(msg),
                        input != nullptr ? error_input(*input) : std::string{}});
  }

  void missing(const std::string& field, const value& object) {
    fail(field, "missing", "Field required", &object);
  }

  void extra(const std::string& field, const value& v) {
    fail(field, "extra_forbidden", "Extra inputs are not permitted", &v);
  }

  // A number in [lo, hi]; null leaves `out` unset.
  void number(const std::string& field, const value& v, double lo, double hi,
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

  // An integer in [lo, hi]; a float without a fraction counts, as pydantic
  // takes it. Null leaves `out` unset.
  void integer(const std::string& field, const value& v, double lo, double hi,
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

  void boolean(const std::string& field, const value& v, std::optional<bool>& out) {
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

  // A string; null leaves `out` unset and returns false, as does a wrong type.
  bool string(const std::string& field, const value& v, std::string& out) {
    if (v.IsNull())
      return false;
    if (!v.IsString()) {
      fail(field, "string_type", "Input should be a valid string", &v);
      return false;
    }
    out = name_of(v);
    return true;
  }

  bool object(const std::string& field, const value& v) {
    if (v.IsObject())
      return true;
    if (!v.IsNull())
      fail(field, "dict_type", "Input should be a valid dictionary", &v);
    return false;
  }

  // `stop`: a string or a list of strings.
  void stop(const std::string& field, const value& v, std::vector<std::string>& out) {
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

  void fail_at(std::initializer_list<std::string> path, std::string type, std::string msg,
               const value& input) {
    auto l = base_;
    l.insert(l.end(), path);
    add_error(errors_, {std::move(type), std::move(l), std::move(msg), error_input(input)});
  }

  bool clean() const { return errors_.empty(); }

 private:
  bool in_range(const std::string& field, const value& v, double d, double lo, double hi) {
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

  std::vector<field_error>& errors_;
  std::vector<std::string> base_;
};

constexpr double int64_lo = -9223372036854775808.0;
constexpr double int64_hi = 9223372036854775807.0;
constexpr double unbounded = 1e300;

// Parses `body` as one JSON object; the 422 FastAPI answers otherwise.
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

// The defaults OpenAI's schema gives the sampling settings (the
// temperature's differs between chat and completions), so that a model
// gets them whether or not the client sent them, as Triton's frontend
// sends them.
void schema_defaults(generation_settings& s, double temperature) {
  s.temperature = temperature;
  s.top_p = 1.0;
  s.frequency_penalty = 0.0;
  s.presence_penalty = 0.0;
}

// What both text routes share: the fields of generation_settings, and the
// ones they take but do not serve (checked after the schema).
struct shared_fields {
  shared_fields(std::vector<field_error>& e, generation_settings& settings)
    : errors(e), s(settings) {}

  std::vector<field_error>& errors;
  generation_settings& s;
  schema_reader r{errors, {"body"}};
  std::optional<int64_t> n;
  std::optional<int64_t> best_of;
  std::optional<bool> stream;
  bool logit_bias = false;
  bool stream_options = false;
  std::optional<bool> include_usage;
  std::optional<int64_t> max_tokens;
  std::optional<int64_t> max_completion_tokens;
  bool has_model = false;

  // Reads a field both routes know; false for one it does not.
  bool read(const std::string& name, const value& v) {
    if (name == "model") {
      has_model = true;
      r.string(name, v, s.model);
    } else if (name == "stream") {
      r.boolean(name, v, stream);
    } else if (name == "stream_options") {
      if (r.object(name, v)) {
        stream_options = true;
        schema_reader inner{errors, r.loc(name)};
        for (const auto& m : v.GetObject())
          if (name_of(m.name) == "include_usage")
            inner.boolean("include_usage", m.value, include_usage);
          else
            inner.extra(name_of(m.name), m.value);
      }
    } else if (name == "max_tokens") {
      r.integer(name, v, 0, int64_hi, max_tokens);
    } else if (name == "min_tokens") {
      r.integer(name, v, 0, int64_hi, s.min_tokens);
    } else if (name == "temperature") {
      r.number(name, v, 0, 2, s.temperature);
    } else if (name == "top_p") {
      r.number(name, v, 0, 1, s.top_p);
    } else if (name == "frequency_penalty") {
      r.number(name, v, -2, 2, s.frequency_penalty);
    } else if (name == "presence_penalty") {
      r.number(name, v, -2, 2, s.presence_penalty);
    } else if (name == "seed") {
      r.integer(name, v, int64_lo, int64_hi, s.seed);
    } else if (name == "ignore_eos") {
      std::optional<bool> b;
      r.boolean(name, v, b);
      s.ignore_eos = b.value_or(false);
    } else if (name == "stop") {
      r.stop(name, v, s.stop);
    } else if (name == "n") {
      r.integer(name, v, 1, 128, n);
    } else if (name == "logit_bias") {
      if (r.object(name, v))
        logit_bias = v.MemberCount() > 0;
    } else if (name == "user") {
      r.string(name, v, s.user);
    } else {
      return false;
    }
    return true;
  }

  void require_model(const value& body) {
    if (!has_model)
      r.missing("model", body);
  }

  // The choices both routes refuse, in Triton's order and words.
  std::optional<api_error> refuse_unserved(const char* logit_bias_text) const {
    if (n.value_or(1) != 1)
      return detail_error(400, "Received n=" + std::to_string(*n)
                                 + ", but only single choice (n=1) is currently supported");
    if (best_of.value_or(1) != 1)
      return detail_error(400, "Received best_of=" + std::to_string(*best_of)
                                 + ", but only single choice (best_of=1) is currently supported");
    if (logit_bias)
      return detail_error(400, logit_bias_text);
    if (stream_options && !stream.value_or(false))
      return detail_error(400, "`stream_options` can only be used when `stream` is True");
    return std::nullopt;
  }

  void finish() {
    s.stream = stream.value_or(false);
    s.usage = include_usage.value_or(false) ? usage_chunk::included : usage_chunk::omitted;
    s.max_tokens = max_completion_tokens ? max_completion_tokens : max_tokens;
  }
};

// Fields of OpenAI's chat schema that change nothing here: accepted, as the
// schema has them, and left alone.
bool ignored_chat_field(const std::string& name) {
  return name == "store" || name == "metadata" || name == "service_tier"
         || name == "parallel_tool_calls" || name == "functions" || name == "function_call"
         || name == "modalities" || name == "reasoning_effort"
         || name == "prediction" || name == "audio" || name == "web_search_options";
}

const char* const message_roles[] = {"system", "developer", "user", "assistant", "tool",
                                     "function"};

bool known_role(const std::string& role) {
  for (const char* r : message_roles)
    if (role == r)
      return true;
  return false;
}

// Checks one message and writes it into `out` (a copy, with each tool
// call's arguments parsed into an object). A content part other than text
// is a 400, which `unserved` records.
void read_message(const value& m, size_t index, std::vector<field_error>& errors,
                  std::optional<std::string>& unserved, rapidjson::Value& out,
                  rapidjson::Document::AllocatorType& alloc) {
  std::vector<std::string> base{"body", "messages", std::to_string(index)};
  schema_reader r{errors, base};
  if (!m.IsObject()) {
    add_error(errors, {"model_type", base, "Input should be a valid dictionary or object",
                      error_input(m)});
    return;
  }
  out.CopyFrom(m, alloc);
  const auto* role = m.FindMember("role") != m.MemberEnd() ? &m["role"] : nullptr;
  if (role == nullptr) {
    r.missing("role", m);
    return;
  }
  std::string role_name;
  if (!r.string("role", *role, role_name))
    return;
  if (!known_role(role_name)) {
    r.fail("role", "union_tag_invalid",
           "Input tag '" + role_name
             + "' found using 'role' does not match any of the expected tags: 'system', "
               "'developer', 'user', 'assistant', 'tool', 'function'",
           role);
    return;
  }
  auto content = m.FindMember("content");
  bool needs_content = role_name != "assistant";
  if (content == m.MemberEnd()) {
    if (needs_content)
      r.missing("content", m);
  } else if (content->value.IsArray()) {
    size_t part_index = 0;
    for (const auto& part : content->value.GetArray()) {
      auto type = part.IsObject() ? part.FindMember("type") : part.MemberEnd();
      if (!part.IsObject() || type == part.MemberEnd() || !type->value.IsString()) {
        add_error(errors, {"model_type",
                          {"body", "messages", std::to_string(index), "content",
                           std::to_string(part_index)},
                          "Input should be a content part with a 'type'", error_input(part)});
      } else if (name_of(type->value) != "text") {
        if (!unserved)
          unserved = "only text message is supported, but got " + name_of(type->value);
      } else {
        auto text = part.FindMember("text");
        if (text == part.MemberEnd() || !text->value.IsString())
          add_error(errors, {"string_type",
                            {"body", "messages", std::to_string(index), "content",
                             std::to_string(part_index), "text"},
                            "Input should be a valid string", error_input(part)});
      }
      ++part_index;
    }
  } else if (!content->value.IsString() && !(content->value.IsNull() && !needs_content)) {
    r.fail("content", "string_type", "Input should be a valid string", &content->value);
  }
  // Chat templates take a tool call's arguments as an object.
  auto calls = out.FindMember("tool_calls");
  if (calls == out.MemberEnd() || !calls->value.IsArray())
    return;
  for (auto& call : calls->value.GetArray()) {
    if (!call.IsObject())
      continue;
    auto fn = call.FindMember("function");
    if (fn == call.MemberEnd() || !fn->value.IsObject())
      continue;
    auto args = fn->value.FindMember("arguments");
    if (args == fn->value.MemberEnd() || !args->value.IsString())
      continue;
    rapidjson::Document parsed;
    std::string_view text{args->value.GetString(), args->value.GetStringLength()};
    if (!http::kserve::codec::parse_json(text, parsed).is_ok() || !parsed.IsObject())
      continue;
    args->value.CopyFrom(parsed, alloc);
  }
}

// `tools`: a list of {"type": "function", "function": {"name", ...}}.
void read_tools(const value& v, std::vector<field_error>& errors, chat_request& out) {
  if (v.IsNull())
    return;
  if (!v.IsArray()) {
    add_error(errors, {"list_type", {"body", "tools"}, "Input should be a valid list",
                      error_input(v)});
    return;
  }
  size_t index = 0;
  for (const auto& tool : v.GetArray()) {
    std::vector<std::string> base{"body", "tools", std::to_string(index++)};
    auto fn = tool.IsObject() ? tool.FindMember("function") : tool.MemberEnd();
    if (!tool.IsObject() || fn == tool.MemberEnd() || !fn->value.IsObject()) {
      base.push_back("function");
      add_error(errors, {"missing", base, "Field required", error_input(tool)});
      continue;
    }
    auto name = fn->value.FindMember("name");
    if (name == fn->value.MemberEnd() || !name->value.IsString()) {
      base.insert(base.end(), {"function", "name"});
      add_error(errors, {"missing", base, "Field required", error_input(fn->value)});
      continue;
    }
    out.tool_names.push_back(name_of(name->value));
    auto parameters = fn->value.FindMember("parameters");
    out.tool_parameters.push_back(parameters != fn->value.MemberEnd()
                                      && parameters->value.IsObject()
                                    ? json_of(parameters->value)
                                    : std::string{"{}"});
  }
  out.tools_json = json_of(v);
}

// `tool_choice`: "none", "auto", "required" or {"type": "function",
// "function": {"name": ...}}.
void read_tool_choice(const value& v, std::vector<field_error>& errors, chat_request& out) {
  if (v.IsNull())
    return;
  if (v.IsString()) {
    auto s = name_of(v);
    if (s == "none")
      out.tool_choice = tool_choice_mode::none;
    else if (s == "auto")
      out.tool_choice = tool_choice_mode::auto_;
    else if (s == "required")
      out.tool_choice = tool_choice_mode::required;
    else
      add_error(errors, {"literal_error", {"body", "tool_choice"},
                        "Input should be 'none', 'auto' or 'required'", error_input(v)});
    return;
  }
  auto fn = v.IsObject() ? v.FindMember("function") : v.MemberEnd();
  if (fn != v.MemberEnd() && fn->value.IsObject()) {
    auto name = fn->value.FindMember("name");
    if (name != fn->value.MemberEnd() && name->value.IsString()) {
      out.tool_choice = tool_choice_mode::named;
      out.tool_choice_name = name_of(name->value);
      return;
    }
  }
  add_error(errors, {"model_type", {"body", "tool_choice"},
                    "Input should be 'none', 'auto', 'required' or a named function",
                    error_input(v)});
}

// `response_format`: {"type": "text"}, {"type": "json_object"} or
// {"type": "json_schema", "json_schema": {"name", "schema": {...}, ...}}.
void read_response_format(const value& v, std::vector<field_error>& errors, chat_request& out) {
  if (v.IsNull())
    return;
  auto type = v.IsObject() ? v.FindMember("type") : v.MemberEnd();
  std::string kind = type != v.MemberEnd() && type->value.IsString() ? name_of(type->value) : "";
  if (kind == "text")
    return;
  if (kind == "json_object") {
    out.response_json = true;
    return;
  }
  if (kind == "json_schema") {
    auto spec = v.FindMember("json_schema");
    if (spec != v.MemberEnd() && spec->value.IsObject()) {
      auto schema = spec->value.FindMember("schema");
      out.response_json = true;
      out.response_schema_json = schema != spec->value.MemberEnd() && schema->value.IsObject()
                                   ? json_of(schema->value)
                                   : std::string{"{}"};
      return;
    }
    add_error(errors, {"missing", {"body", "response_format", "json_schema"}, "Field required",
                       error_input(v)});
    return;
  }
  add_error(errors, {"union_tag_invalid", {"body", "response_format"},
                     "Input tag found using 'type' does not match any of the expected tags: "
                     "'text', 'json_object', 'json_schema'",
                     error_input(v)});
}

// The tool checks of Triton's frontend, which come after the schema's.
std::optional<api_error> refuse_tools(const chat_request& c) {
  bool has_tools = !c.tool_names.empty();
  if (c.tool_choice == tool_choice_mode::required && !has_tools)
    return detail_error(
      400, "\"required\" tool choice requires CreateChatCompletionRequest.tools to be provided");
  if (c.tool_choice == tool_choice_mode::named) {
    if (!has_tools)
      return detail_error(
        400, "Named tool choice requires CreateChatCompletionRequest.tools to be provided");
    bool found = false;
    for (const auto& n : c.tool_names)
      found = found || n == c.tool_choice_name;
    if (!found)
      return detail_error(400, "Tool '" + c.tool_choice_name
                                 + "' has not been passed in `tools`.");
  }
  return std::nullopt;
}

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

std::optional<api_error> decode_chat_request(std::string_view body, chat_request& out) {
  rapidjson::Document doc;
  if (auto bad = parse_object(body, doc))
    return bad;
  std::vector<field_error> errors;
  shared_fields shared{errors, out.settings};
  schema_reader& r = shared.r;
  schema_defaults(out.settings, 0.7);
  bool has_messages = false;
  std::optional<bool> logprobs;
  std::optional<int64_t> top_logprobs;
  std::optional<std::string> unserved;
  rapidjson::Document messages(rapidjson::kArrayType);
  for (const auto& m : doc.GetObject()) {
    auto name = name_of(m.name);
    const auto& v = m.value;
    if (shared.read(name, v))
      continue;
    if (name == "messages") {
      has_messages = true;
      if (!v.IsArray()) {
        r.fail(name, "list_type", "Input should be a valid list", &v);
      } else if (v.Empty()) {
        r.fail(name, "too_short", "List should have at least 1 item after validation, not 0",
               &v);
      } else {
        size_t index = 0;
        for (const auto& message : v.GetArray()) {
          rapidjson::Value copy;
          read_message(message, index++, errors, unserved, copy, messages.GetAllocator());
          messages.PushBack(copy, messages.GetAllocator());
        }
      }
    } else if (name == "max_completion_tokens") {
      r.integer(name, v, 0, int64_hi, shared.max_completion_tokens);
    } else if (name == "logprobs") {
      r.boolean(name, v, logprobs);
    } else if (name == "top_logprobs") {
      r.integer(name, v, 0, 20, top_logprobs);
    } else if (name == "tools") {
      read_tools(v, errors, out);
    } else if (name == "tool_choice") {
      read_tool_choice(v, errors, out);
    } else if (name == "response_format") {
      read_response_format(v, errors, out);
    } else if (!ignored_chat_field(name)) {
      r.extra(name, v);
    }
  }
  shared.require_model(doc);
  if (!has_messages)
    r.missing("messages", doc);
  if (!errors.empty())
    return validation_failed(errors);
  if (auto refused = shared.refuse_unserved("logit bias is not currently supported"))
    return refused;
  if (top_logprobs && !logprobs.value_or(false))
    return detail_error(400, "`top_logprobs` can only be used when `logprobs` is True");
  if (unserved)
    return detail_error(400, *unserved);
  if (auto refused = refuse_tools(out))
    return refused;
  if (logprobs.value_or(false))
    out.settings.logprobs = top_logprobs.value_or(1);
  out.messages_json = json_of(messages);
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
