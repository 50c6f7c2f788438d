// The body of POST /v1/chat/completions (decode_chat_request): the fields
// chat shares with completions (shared_fields.hpp), and what only chat has:
// the messages and their content parts, the tools, tool_choice and
// response_format.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "conch/transports/http/kserve/codec/json_policy.hpp"
#include "conch/transports/openai/decode_requests.hpp"
#include "conch/transports/openai/schema_reader.hpp"
#include "conch/transports/openai/shared_fields.hpp"

namespace conch::transports::openai {

using detail::add_error;
using detail::error_input;
using detail::int64_hi;
using detail::json_of;
using detail::member;
using detail::name_of;
using detail::parse_object;
using detail::schema_defaults;
using detail::schema_reader;
using detail::shared_fields;
using detail::value;

namespace {

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
      const auto* type = member(part, "type");
      if (type == nullptr || !type->IsString()) {
        add_error(errors, {"model_type",
                          {"body", "messages", std::to_string(index), "content",
                           std::to_string(part_index)},
                          "Input should be a content part with a 'type'", error_input(part)});
      } else if (name_of(*type) != "text") {
        if (!unserved)
          unserved = "only text message is supported, but got " + name_of(*type);
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
    const auto* fn = member(tool, "function");
    if (fn == nullptr || !fn->IsObject()) {
      base.push_back("function");
      add_error(errors, {"missing", base, "Field required", error_input(tool)});
      continue;
    }
    auto name = fn->FindMember("name");
    if (name == fn->MemberEnd() || !name->value.IsString()) {
      base.insert(base.end(), {"function", "name"});
      add_error(errors, {"missing", base, "Field required", error_input(*fn)});
      continue;
    }
    out.tool_names.push_back(name_of(name->value));
    auto parameters = fn->FindMember("parameters");
    out.tool_parameters.push_back(parameters != fn->MemberEnd()
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
  const auto* fn = member(v, "function");
  if (fn != nullptr && fn->IsObject()) {
    auto name = fn->FindMember("name");
    if (name != fn->MemberEnd() && name->value.IsString()) {
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
  const auto* type = member(v, "type");
  std::string kind = type != nullptr && type->IsString() ? name_of(*type) : "";
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

} // namespace conch::transports::openai
