#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "conch/transports/openai/api_error.hpp"
#include "conch/transports/openai/requests.hpp"
#include "conch/transports/openai/schema_reader.hpp"

namespace conch::transports::openai::detail {

/// Sets the defaults OpenAI's schema gives the sampling settings (the
/// temperature's differs between chat and completions), so that a model
/// gets them whether or not the client sent them, as Triton's frontend
/// sends them.
void schema_defaults(generation_settings& s, double temperature);

/// What both text routes (completions and chat) share: the fields of
/// generation_settings, and the ones they take but do not serve (checked
/// after the schema). Keeps references to `e` and `settings`.
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

  /// Reads a field both routes know; false for one it does not.
  bool read(const std::string& name, const value& v);

  /// Records `model` as missing from `body` unless read() saw it.
  void require_model(const value& body);

  /// The choices both routes refuse, in Triton's order and words.
  std::optional<api_error> refuse_unserved(const char* logit_bias_text) const;

  /// Writes what was read into the settings: stream, usage, max_tokens.
  void finish();
};

} // namespace conch::transports::openai::detail
