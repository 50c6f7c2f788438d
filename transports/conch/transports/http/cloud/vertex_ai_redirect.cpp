#include "conch/transports/http/cloud/vertex_ai_redirect.hpp"

#include <algorithm>
#include <initializer_list>

namespace conch::transports::http::cloud {

namespace {

using segment_list = std::vector<std::string_view>;

// The longest path the table names has six segments.
constexpr size_t max_segments = 6;

// The segments of `path` split on '/'; nullopt when one is empty (no
// endpoint has an empty segment) or when there are more than any endpoint
// has.
std::optional<segment_list> split_segments(std::string_view path) {
  segment_list out;
  while (true) {
    auto slash = path.find('/');
    auto part = path.substr(0, slash);
    if (part.empty() || out.size() == max_segments)
      return std::nullopt;
    out.push_back(part);
    if (slash == std::string_view::npos)
      return out;
    path.remove_prefix(slash + 1);
  }
}

bool one_of(std::string_view s, std::initializer_list<std::string_view> words) {
  return std::find(words.begin(), words.end(), s) != words.end();
}

bool digits(std::string_view s) {
  return !s.empty()
         && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// What follows v2/models/<m>, without a leading versions/<n>.
segment_list unversioned(segment_list rest) {
  if (rest.size() >= 2 && rest[0] == "versions" && digits(rest[1]))
    rest.erase(rest.begin(), rest.begin() + 2);
  return rest;
}

std::optional<redirect_method> model_endpoint(const segment_list& rest) {
  auto tail = unversioned(rest);
  if (tail.empty() || (tail.size() == 1 && one_of(tail[0], {"ready", "config", "stats"})))
    return redirect_method::get;
  if (tail.size() == 1 && tail[0] == "infer")
    return redirect_method::post;
  return std::nullopt;
}

std::optional<redirect_method> shared_memory_endpoint(const segment_list& rest) {
  std::string_view action;
  if (rest.size() == 1)
    action = rest[0];
  else if (rest.size() == 3 && rest[0] == "region")
    action = rest[2];
  if (action == "status")
    return redirect_method::get;
  if (one_of(action, {"register", "unregister"}))
    return redirect_method::post;
  return std::nullopt;
}

std::optional<redirect_method> repository_endpoint(segment_list rest) {
  // An optional repository name comes first.
  if (rest.size() == 2 || rest.size() == 4)
    rest.erase(rest.begin());
  if (rest.size() == 1 && rest[0] == "index")
    return redirect_method::post;
  if (rest.size() == 3 && rest[0] == "models" && one_of(rest[2], {"load", "unload"}))
    return redirect_method::post;
  return std::nullopt;
}

std::optional<redirect_method> endpoint_method(const segment_list& s) {
  if (s[0] != "v2")
    return std::nullopt;
  if (s.size() == 1)
    return redirect_method::get;
  segment_list rest{s.begin() + 2, s.end()};
  if (s[1] == "health")
    return s.size() == 3 && one_of(s[2], {"live", "ready"})
             ? std::optional<redirect_method>{redirect_method::get}
             : std::nullopt;
  if (s[1] == "models") {
    if (rest.empty())
      return std::nullopt;
    if (rest.size() == 1 && rest[0] == "stats")
      return redirect_method::get;
    return model_endpoint(segment_list{rest.begin() + 1, rest.end()});
  }
  if (one_of(s[1], {"systemsharedmemory", "cudasharedmemory"}))
    return shared_memory_endpoint(rest);
  if (s[1] == "repository")
    return repository_endpoint(std::move(rest));
  return std::nullopt;
}

} // namespace

std::optional<vertex_ai_redirect> match_vertex_ai_redirect(std::string_view path) {
  auto segments = split_segments(path);
  if (!segments)
    return std::nullopt;
  auto method = endpoint_method(*segments);
  if (!method)
    return std::nullopt;
  return vertex_ai_redirect{{segments->begin(), segments->end()}, *method};
}

} // namespace conch::transports::http::cloud
