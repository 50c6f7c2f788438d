#include "conch/transports/http/kserve/router.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace conch::transports::http::kserve {

namespace {

using segments = std::vector<std::string>;

runtime::status not_found() { return runtime::not_found("Not Found"); }

bool all_digits(std::string_view s) {
  if (s.empty())
    return false;
  for (char c : s)
    if (c < '0' || c > '9')
      return false;
  return true;
}

runtime::result<int64_t> parse_version(std::string_view s) {
  int64_t v = 0;
  for (char c : s) {
    int d = c - '0';
    if (v > (std::numeric_limits<int64_t>::max() - d) / 10)
      return runtime::invalid_argument("version should be an integral value > 0");
    v = v * 10 + d;
  }
  return v;
}

std::optional<endpoint> model_action(std::string_view a) {
  if (a == "infer")
    return endpoint::model_infer;
  if (a == "generate")
    return endpoint::model_generate;
  if (a == "generate_stream")
    return endpoint::model_generate_stream;
  if (a == "ready")
    return endpoint::model_ready;
  if (a == "config")
    return endpoint::model_config;
  if (a == "stats")
    return endpoint::model_statistics;
  return std::nullopt;
}

// /v2/models/{m}[/versions/{v}][/{action}], and /v2/models/{m}/trace/setting.
runtime::result<route> match_model(const segments& s) {
  if (s.size() < 3 || s[2].empty())
    return not_found();
  route r;
  r.model = s[2];
  size_t i = 3;
  std::string_view version_text;
  if (s.size() >= i + 2 && s[i] == "versions" && all_digits(s[i + 1])) {
    version_text = s[i + 1];
    i += 2;
  }
  if (i == s.size()) {
    r.target = endpoint::model_metadata;
  } else if (i + 1 == s.size() && model_action(s[i])) {
    r.target = *model_action(s[i]);
  } else if (version_text.empty() && i + 2 == s.size() && s[i] == "trace"
             && s[i + 1] == "setting") {
    r.target = endpoint::model_trace_setting;
  } else {
    return not_found();
  }
  if (!version_text.empty()) {
    auto v = parse_version(version_text);
    if (!v)
      return v.error();
    r.version = *v;
  }
  return r;
}

// /v2/(system|cuda)sharedmemory[/region/{r}]/(status|register|unregister)
runtime::result<route> match_shared_memory(const segments& s) {
  route r;
  r.target = s[1] == "systemsharedmemory" ? endpoint::system_shared_memory
                                          : endpoint::cuda_shared_memory;
  size_t i = 2;
  if (s.size() == 5 && s[2] == "region" && !s[3].empty()) {
    r.region = s[3];
    i = 4;
  }
  if (i + 1 != s.size())
    return not_found();
  r.action = s[i];
  if (r.action != "status" && r.action != "register" && r.action != "unregister")
    return not_found();
  return r;
}

// /v2/repository[/{repo}]/index and /v2/repository[/{repo}]/models/{m}/(load|unload)
runtime::result<route> match_repository(const segments& s) {
  route r;
  size_t i = 2;
  auto tail = [&](size_t at) {
    if (at + 1 == s.size() && s[at] == "index") {
      r.target = endpoint::repository_index;
      return true;
    }
    if (at + 3 == s.size() && s[at] == "models" && !s[at + 1].empty()
        && (s[at + 2] == "load" || s[at + 2] == "unload")) {
      r.target = s[at + 2] == "load" ? endpoint::repository_load : endpoint::repository_unload;
      r.model = s[at + 1];
      return true;
    }
    return false;
  };
  if (tail(i))
    return r;
  if (s.size() > 3 && !s[2].empty() && tail(3)) {
    r.repository = s[2];
    return r;
  }
  return not_found();
}

} // namespace

runtime::result<route> match_route(const segments& s) {
  if (s.empty() || s[0] != "v2")
    return not_found();
  route r;
  if (s.size() == 3 && s[1] == "models" && s[2] == "stats") {
    r.target = endpoint::all_statistics;
    return r;
  }
  if (s.size() == 2 && s[1] == "logging") {
    r.target = endpoint::logging;
    return r;
  }
  if (s.size() >= 3 && s[1] == "models")
    return match_model(s);
  if (s.size() == 1) {
    r.target = endpoint::server_metadata;
    return r;
  }
  if (s.size() == 3 && s[1] == "health" && (s[2] == "live" || s[2] == "ready")) {
    r.target = s[2] == "live" ? endpoint::health_live : endpoint::health_ready;
    return r;
  }
  if (s.size() >= 3 && (s[1] == "systemsharedmemory" || s[1] == "cudasharedmemory"))
    return match_shared_memory(s);
  if (s.size() >= 3 && s[1] == "repository")
    return match_repository(s);
  if (s.size() == 3 && s[1] == "trace" && s[2] == "setting") {
    r.target = endpoint::trace_setting;
    return r;
  }
  return not_found();
}

} // namespace conch::transports::http::kserve
