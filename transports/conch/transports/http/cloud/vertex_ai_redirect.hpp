#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace conch::transports::http::cloud {

/// The method KServe serves a redirected endpoint with.
enum class redirect_method { get, post };

/// A KServe endpoint an `X-Vertex-Ai-Triton-Redirect` header names.
struct vertex_ai_redirect {
  /// The endpoint's path segments ({"v2", "models", "m", "infer"}).
  std::vector<std::string> segments;
  /// GET for the endpoints that read, POST for the rest.
  redirect_method method = redirect_method::post;
};

/// The KServe endpoint that `path` (a redirect target without its leading
/// '/') names, when it is one Triton's Vertex AI frontend redirects to:
///   v2, v2/health/{live,ready}, v2/models/stats,
///   v2/models/<m>[/versions/<n>][/{ready,config,stats}]  (GET)
///   v2/models/<m>[/versions/<n>]/infer                   (POST)
///   v2/{system,cuda}sharedmemory[/region/<r>]/status      (GET)
///   v2/{system,cuda}sharedmemory[/region/<r>]/{register,unregister}
///   v2/repository[/<r>]/index, v2/repository[/<r>]/models/<m>/{load,unload}
/// where a name is any non-empty text without '/' and <n> is decimal digits.
/// nullopt for any other path. Takes time linear in the path, whatever its
/// length.
std::optional<vertex_ai_redirect> match_vertex_ai_redirect(std::string_view path);

} // namespace conch::transports::http::cloud
