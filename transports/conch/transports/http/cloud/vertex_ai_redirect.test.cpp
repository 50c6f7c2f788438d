#include "conch/transports/http/cloud/vertex_ai_redirect.hpp"

#include <random>
#include <regex>
#include <string>

#include <gtest/gtest.h>

namespace conch::transports::http::cloud {
namespace {

std::string joined(const std::vector<std::string>& segments) {
  std::string out;
  for (const auto& s : segments)
    out += (out.empty() ? "" : "/") + s;
  return out;
}

void expect_redirect(std::string_view path, redirect_method method) {
  auto r = match_vertex_ai_redirect(path);
  ASSERT_TRUE(r) << path;
  EXPECT_EQ(r->method, method) << path;
  EXPECT_EQ(joined(r->segments), path);
}

TEST(vertex_ai_redirect, names_the_kserve_endpoints) {
  for (auto path : {"v2", "v2/health/live", "v2/health/ready", "v2/models/stats", "v2/models/m",
                    "v2/models/m/ready", "v2/models/m/versions/3/config", "v2/models/m/stats",
                    "v2/models/m/versions/12", "v2/systemsharedmemory/status",
                    "v2/cudasharedmemory/region/r/status"})
    expect_redirect(path, redirect_method::get);
  for (auto path : {"v2/models/m/infer", "v2/models/m/versions/2/infer",
                    "v2/systemsharedmemory/region/r/register", "v2/cudasharedmemory/unregister",
                    "v2/repository/index", "v2/repository/r/index",
                    "v2/repository/models/m/load", "v2/repository/r/models/m/unload"})
    expect_redirect(path, redirect_method::post);
}

TEST(vertex_ai_redirect, refuses_everything_else) {
  for (auto path : {"", "v2/", "/v2", "v2//models/m", "v2/health", "v2/models", "v2/models/m/",
                    "v2/models/m/trace/setting", "v2/models/m/versions/x/ready",
                    "v2/models/m/versions", "v2/models/m/generate", "v2/logging", "elsewhere",
                    "metrics", "v2/repository", "v2/repository/models/m",
                    "v2/repository/a/b/models/m/load", "V2/health/live",
                    "v2/systemsharedmemory/region/status", "v2/models/m/versions/1/ready/x"})
    EXPECT_FALSE(match_vertex_ai_redirect(path)) << path;
}

// The table as Triton's Vertex AI frontend writes it, in regular
// expressions; the matcher must agree with it on every path.
std::optional<redirect_method> by_regex(const std::string& path) {
  static const std::vector<std::pair<std::regex, redirect_method>> rules{
    {std::regex{R"(v2(/health/(live|ready))?)"}, redirect_method::get},
    {std::regex{R"(v2/models/stats)"}, redirect_method::get},
    {std::regex{R"(v2/models/[^/]+(/versions/[0-9]+)?(/(ready|config|stats))?)"},
     redirect_method::get},
    {std::regex{R"(v2/models/[^/]+(/versions/[0-9]+)?/infer)"}, redirect_method::post},
    {std::regex{R"(v2/(systemsharedmemory|cudasharedmemory)(/region/[^/]+)?/status)"},
     redirect_method::get},
    {std::regex{
       R"(v2/(systemsharedmemory|cudasharedmemory)(/region/[^/]+)?/(register|unregister))"},
     redirect_method::post},
    {std::regex{R"(v2/repository(/[^/]+)?/(index|models/[^/]+/(load|unload)))"},
     redirect_method::post}};
  for (const auto& [pattern, method] : rules)
    if (std::regex_match(path, pattern))
      return method;
  return std::nullopt;
}

TEST(vertex_ai_redirect, agrees_with_the_regular_expressions_it_replaces) {
  const std::vector<std::string> words{
    "v2",     "models", "m",      "stats",  "versions",           "1",
    "07",     "x1",     "ready",  "config", "infer",              "health",
    "live",   "index",  "region", "status", "systemsharedmemory", "cudasharedmemory",
    "r",      "load",   "unload", "repository", "register",       "unregister",
    "",       "a b"};
  std::mt19937 rng{39};
  std::uniform_int_distribution<size_t> word{0, words.size() - 1};
  std::uniform_int_distribution<int> length{1, 7};
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::string> parts{"v2"};
    int n = length(rng);
    for (int k = 1; k < n; ++k)
      parts.push_back(words[word(rng)]);
    if (i % 10 == 0)
      parts[0] = words[word(rng)];
    auto path = joined(parts);
    auto matched = match_vertex_ai_redirect(path);
    auto expected = by_regex(path);
    ASSERT_EQ(matched.has_value(), expected.has_value()) << path;
    if (matched) {
      EXPECT_EQ(matched->method, *expected) << path;
    }
  }
}

// std::regex overflowed its stack on a redirect of about 30 KB.
TEST(vertex_ai_redirect, a_megabyte_long_path_is_refused) {
  const std::string name(1 << 20, 'm');
  EXPECT_FALSE(match_vertex_ai_redirect("v2/models/" + name + "/x"));
  EXPECT_FALSE(match_vertex_ai_redirect(std::string(1 << 20, '/')));
  EXPECT_FALSE(match_vertex_ai_redirect(name));
  std::string many;
  for (int i = 0; i < (1 << 18); ++i)
    many += "v2/";
  EXPECT_FALSE(match_vertex_ai_redirect(many));
  // A long model name is still a name: KServe answers for it.
  auto infer = match_vertex_ai_redirect("v2/models/" + name + "/infer");
  ASSERT_TRUE(infer);
  EXPECT_EQ(infer->segments[2].size(), name.size());
}

} // namespace
} // namespace conch::transports::http::cloud
