#include "conch/transports/openai/shared_fields.hpp"

#include <optional>
#include <string>

namespace conch::transports::openai::detail {

void schema_defaults(generation_settings& s, double temperature) {
  s.temperature = temperature;
  s.top_p = 1.0;
  s.frequency_penalty = 0.0;
  s.presence_penalty = 0.0;
}

bool shared_fields::read(const std::string& name, const value& v) {
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

void shared_fields::require_model(const value& body) {
  if (!has_model)
    r.missing("model", body);
}

std::optional<api_error> shared_fields::refuse_unserved(const char* logit_bias_text) const {
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

void shared_fields::finish() {
  s.stream = stream.value_or(false);
  s.usage = include_usage.value_or(false) ? usage_chunk::included : usage_chunk::omitted;
  s.max_tokens = max_completion_tokens ? max_completion_tokens : max_tokens;
}

} // namespace conch::transports::openai::detail
