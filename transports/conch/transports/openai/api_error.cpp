#include "conch/transports/openai/api_error.hpp"

#include <cctype>

#include "conch/transports/openai/json_text.hpp"

namespace conch::transports::openai {

namespace {

bool all_digits(const std::string& s) {
  if (s.empty())
    return false;
  for (char c : s)
    if (std::isdigit(static_cast<unsigned char>(c)) == 0)
      return false;
  return true;
}

} // namespace

api_error validation_failed(const std::vector<field_error>& errors) {
  json_text j;
  j.begin_object();
  j.key("detail");
  j.begin_array();
  for (const auto& e : errors) {
    j.begin_object();
    j.member("type", e.type);
    j.key("loc");
    j.begin_array();
    for (const auto& part : e.loc) {
      if (all_digits(part) && part.size() < 10)
        j.value(static_cast<int64_t>(std::stoll(part)));
      else
        j.value(part);
    }
    j.end_array();
    j.member("msg", e.msg);
    if (!e.input_json.empty()) {
      j.key("input");
      j.raw(e.input_json);
    }
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return {422, j.take()};
}

api_error detail_error(int status, std::string_view message) {
  json_text j;
  j.begin_object();
  j.member("detail", message);
  j.end_object();
  return {status, j.take()};
}

api_error openai_error(int status, std::string_view message, std::string_view type,
                       std::string_view code) {
  json_text j;
  j.begin_object();
  j.key("error");
  j.begin_object();
  j.member("message", message);
  j.member("type", type);
  j.member("code", code);
  j.end_object();
  j.end_object();
  return {status, j.take()};
}

api_error from_status(const runtime::status& error) {
  using runtime::errc;
  switch (error.code()) {
    case errc::invalid_argument:
    case errc::not_found:
    case errc::unsupported:
    case errc::already_exists: return detail_error(400, error.message());
    case errc::unavailable: return detail_error(503, error.message());
    default: return detail_error(500, error.message());
  }
}

std::string stream_error_event(const runtime::status& error) {
  const bool client = from_status(error).status == 400;
  json_text j;
  j.begin_object();
  j.key("error");
  j.begin_object();
  j.member("message", error.message());
  j.member("type", client ? "invalid_request_error" : "server_error");
  j.null_member("param");
  j.null_member("code");
  j.end_object();
  j.end_object();
  return j.take();
}

} // namespace conch::transports::openai
