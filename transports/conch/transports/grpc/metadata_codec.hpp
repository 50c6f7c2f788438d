#pragma once

#include "conch/runtime/statistics/statistics_snapshot.hpp"
#include "conch/transports/gateway.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

/// Writes server metadata into a ServerMetadataResponse.
void encode_server_metadata(const runtime::server_metadata& info, inference::ServerMetadataResponse& out);

/// Writes model metadata into a ModelMetadataResponse.
void encode_model_metadata(const runtime::model_metadata& info, inference::ModelMetadataResponse& out);

/// Writes one model version's statistics into a ModelStatistics message.
void encode_model_statistics(const runtime::statistics::statistics_snapshot& s,
                             inference::ModelStatistics& out);

} // namespace conch::transports::grpc
