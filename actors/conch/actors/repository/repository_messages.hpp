#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>

#include "conch/runtime/repository/load_parameters.hpp"
#include "conch/runtime/repository/model_state.hpp"
#include "conch/runtime/repository/repository_root.hpp"

namespace conch::actors {

using runtime::index_entry;
using runtime::load_parameters;
using runtime::model_state;
using runtime::model_state_name;

using load_parameters_ptr = std::shared_ptr<const load_parameters>;

using index_ptr = std::shared_ptr<const std::vector<index_entry>>;

/// A repository to register: its path and name mapping.
using repository_root_ptr = std::shared_ptr<const runtime::repository::repository_root>;

} // namespace conch::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::actors::load_parameters_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::actors::index_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::actors::repository_root_ptr)
