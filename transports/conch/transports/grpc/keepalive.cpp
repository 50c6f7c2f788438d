#include "conch/transports/grpc/keepalive.hpp"

namespace conch::transports::grpc {

void add_keepalive_arguments(const keepalive_options& o, ::grpc::ServerBuilder& builder) {
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, o.keepalive_time_ms);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, o.keepalive_timeout_ms);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS,
                             o.keepalive_permit_without_calls ? 1 : 0);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA,
                             o.http2_max_pings_without_data);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                             o.http2_min_recv_ping_interval_without_data_ms);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, o.http2_max_ping_strikes);
  if (o.max_connection_age_ms > 0)
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS, o.max_connection_age_ms);
  if (o.max_connection_age_grace_ms > 0)
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
                               o.max_connection_age_grace_ms);
}

} // namespace conch::transports::grpc
