#include "conch/transports/openai/logprobs.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

#include <rapidjson/document.h>

#include "conch/transports/http/kserve/codec/json_policy.hpp"
#include "conch/transports/openai/json_text.hpp"

namespace conch::transports::openai {

namespace {

constexpr double unlikely = -9999.0;

void write_bytes(json_text& j, std::string_view token) {
  j.key("bytes");
  j.begin_array();
  for (unsigned char c : token)
    j.value(static_cast<int>(c));
  j.end_array();
}

} // namespace

int64_t character_count(std::string_view text) noexcept {
  int64_t n = 0;
  for (unsigned char c : text)
    n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::vector<position_logprobs> read_vllm_logprobs(std::string_view json) {
  std::vector<position_logprobs> out;
  rapidjson::Document doc;
  if (!http::kserve::codec::parse_json(json, doc).is_ok() || !doc.IsArray())
    return out;
  for (const auto& position : doc.GetArray()) {
    if (!position.IsObject() || position.MemberCount() == 0)
      continue;
    std::vector<std::pair<int64_t, position_logprobs::candidate>> ranked;
    for (const auto& m : position.GetObject()) {
      const auto& v = m.value;
      if (!v.IsObject())
        continue;
      position_logprobs::candidate c;
      auto token = v.FindMember("decoded_token");
      if (token != v.MemberEnd() && token->value.IsString())
        c.token.assign(token->value.GetString(), token->value.GetStringLength());
      auto logprob = v.FindMember("logprob");
      if (logprob != v.MemberEnd() && logprob->value.IsNumber())
        c.logprob = logprob->value.GetDouble();
      if (!std::isfinite(c.logprob))
        c.logprob = unlikely;
      auto rank = v.FindMember("rank");
      int64_t r = rank != v.MemberEnd() && rank->value.IsInt64() ? rank->value.GetInt64()
                                                                 : INT64_MAX;
      ranked.emplace_back(r, std::move(c));
    }
    if (ranked.empty())
      continue;
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    position_logprobs p;
    for (auto& [rank, c] : ranked)
      p.candidates.push_back(std::move(c));
    out.push_back(std::move(p));
  }
  return out;
}

std::string chat_logprobs_json(const std::vector<position_logprobs>& positions) {
  json_text j;
  j.begin_object();
  j.key("content");
  j.begin_array();
  for (const auto& p : positions) {
    const auto& chosen = p.candidates.front();
    j.begin_object();
    j.member("token", chosen.token);
    j.member("logprob", chosen.logprob);
    write_bytes(j, chosen.token);
    j.key("top_logprobs");
    j.begin_array();
    for (const auto& c : p.candidates) {
      j.begin_object();
      j.member("token", c.token);
      j.member("logprob", c.logprob);
      write_bytes(j, c.token);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.take();
}

std::string completion_logprobs_json(const std::vector<position_logprobs>& positions,
                                     int64_t offset) {
  json_text j;
  j.begin_object();
  j.key("text_offset");
  j.begin_array();
  for (const auto& p : positions) {
    j.value(offset);
    offset += character_count(p.candidates.front().token);
  }
  j.end_array();
  j.key("token_logprobs");
  j.begin_array();
  for (const auto& p : positions)
    j.value(p.candidates.front().logprob);
  j.end_array();
  j.key("tokens");
  j.begin_array();
  for (const auto& p : positions)
    j.value(p.candidates.front().token);
  j.end_array();
  j.key("top_logprobs");
  j.begin_array();
  for (const auto& p : positions) {
    j.begin_object();
    for (const auto& c : p.candidates)
      j.member(c.token, c.logprob);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.take();
}

} // namespace conch::transports::openai
