#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>

#include "conch/actors/model_state.hpp"
#include "conch/runtime/repository/repository_root.hpp"

namespace conch::actors {

/// What a load asks for beyond the model's name: a JSON configuration that
/// replaces config.pbtxt, and file contents ("file:<version>/<path>", bytes)
/// that replace the model directory.
struct load_parameters {
  std::optional<std::string> config_json;
  std::vector<std::pair<std::string, std::string>> files;
};

using load_parameters_ptr = std::shared_ptr<const load_parameters>;

/// One row of the repository index. `version` is empty and state unknown for
/// a model that was found but never loaded.
struct index_entry {
  std::string name;
  std::string version;
  model_state state = model_state::unknown;
  std::string reason;
};

using index_ptr = std::shared_ptr<const std::vector<index_entry>>;

/// A repository to register: its path and name mapping.
using repository_root_ptr = std::shared_ptr<const runtime::repository::repository_root>;

} // namespace conch::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::actors::load_parameters_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::actors::index_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::actors::repository_root_ptr)
