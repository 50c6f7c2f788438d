#include "conch/transports/grpc/grpc_status.hpp"

#include "conch/transports/status_mapping.hpp"

namespace conch::transports::grpc {

::grpc::Status to_grpc_status(const runtime::status& st) {
  if (st.is_ok())
    return ::grpc::Status::OK;
  auto code = static_cast<::grpc::StatusCode>(grpc_code(st.code()));
  return {code, st.message()};
}

} // namespace conch::transports::grpc
