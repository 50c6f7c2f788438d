#pragma once

#include <string>

namespace conch::tests {

/// The config.pbtxt of an identity model `name`: FP32 INPUT0 -> OUTPUT0 with
/// dims [n], `max_batch_size`, and `extra` (more top-level fields) appended.
/// Without a name field when `name` is empty (the directory names it).
inline std::string identity_config(const std::string& name, int max_batch_size = 8,
                                   const std::string& extra = "", int n = 16) {
  std::string out;
  if (!name.empty())
    out += "name: \"" + name + "\"\n";
  out += "backend: \"identity\"\n";
  out += "max_batch_size: " + std::to_string(max_batch_size) + "\n";
  out += "input [ { name: \"INPUT0\" data_type: TYPE_FP32 dims: [ " + std::to_string(n)
         + " ] } ]\n";
  out += "output [ { name: \"OUTPUT0\" data_type: TYPE_FP32 dims: [ " + std::to_string(n)
         + " ] } ]\n";
  out += extra;
  out += "\n";
  return out;
}

/// An identity model that sleeps `delay_ms` per execution (cancellably) and
/// honours the request parameter "execute_delay_ms".
inline std::string delayed_identity_config(const std::string& name, int delay_ms,
                                           int max_batch_size = 8,
                                           const std::string& extra = "") {
  return identity_config(name, max_batch_size,
                         "parameters { key: \"execute_delay_ms\" value: { string_value: \""
                           + std::to_string(delay_ms) + "\" } }\n" + extra);
}

} // namespace conch::tests
