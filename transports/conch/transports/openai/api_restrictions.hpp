#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/result.hpp"
#include "conch/transports/http/header_map.hpp"

namespace conch::transports::openai {

/// The endpoint groups of the OpenAI frontend that a header can restrict
/// (--openai-restricted-api), as Triton's frontend names them.
enum class api_group {
  inference,         // POST /v1/chat/completions, POST /v1/completions
  embedding,         // POST /v1/embeddings
  model_repository,  // GET /v1/models, GET /v1/models/{model}
  model_management,  // POST /v1/models/{model}/load, .../unload
  metrics,           // GET /metrics
  health,            // GET /health/ready
};

/// One restriction as configured: the groups (by name, "inference",
/// "model-repository", ...) that need header `key` with value `value`.
struct api_restriction {
  std::vector<std::string> apis;
  std::string key;
  std::string value;
};

/// The groups every request is checked against: the header's name is
/// compared without regard to case, its value exactly. Read-only once
/// made; thread-safe.
class api_restrictions {
 public:
  api_restrictions() = default;

  /// INVALID_ARG, in Triton's words, for an unknown group ("Unknown API
  /// 'x'. Available APIs: [...]"), a group named twice, or an empty key.
  static runtime::result<api_restrictions> make(const std::vector<api_restriction>& groups);

  /// The header a request with `headers` lacks to reach `group`; nullopt
  /// when it may go on.
  std::optional<std::string_view> missing_header(api_group group,
                                                 const http::header_map& headers) const;

 private:
  struct rule {
    api_group group;
    std::string key;
    std::string value;
  };
  std::vector<rule> rules_;
};

} // namespace conch::transports::openai
