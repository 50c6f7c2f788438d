#pragma once

#include <string>

#include <google/protobuf/map.h>

#include "conch/runtime/result.hpp"
#include "conch/transports/gateway.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

/// The parameter map of a RepositoryModelLoad or RepositoryModelUnload
/// request.
using repository_parameter_map
  = google::protobuf::Map<std::string, inference::ModelRepositoryParameter>;

/// What a RepositoryModelLoad asks for (spec §1.12, §2.1): `config` is a
/// string_param holding a ModelConfig in JSON, each `file:<version>/<path>`
/// a bytes_param with the file's raw contents. Other parameters are
/// ignored. INVALID_ARG naming the parameter for a value of another type.
runtime::result<runtime::load_parameters> decode_load_parameters(const repository_parameter_map& params);

/// The `unload_dependents` bool_param of a RepositoryModelUnload; false
/// when absent. INVALID_ARG for a value of another type.
runtime::result<bool> decode_unload_dependents(const repository_parameter_map& params);

} // namespace conch::transports::grpc
