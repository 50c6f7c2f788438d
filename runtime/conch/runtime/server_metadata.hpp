#pragma once

#include <string>
#include <vector>

namespace conch::runtime {

/// Server metadata: the name, the version and the protocol extensions the
/// server implements. One type for the server and the frontends; each
/// frontend lists the extensions in its protocol's order.
struct server_metadata {
  std::string name;
  std::string version;
  std::vector<std::string> extensions;
};

} // namespace conch::runtime
