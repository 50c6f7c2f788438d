#include "conch/transports/protocol/tracing.hpp"

namespace conch::transports::protocol {

runtime::status tracing_unsupported() {
  return runtime::unavailable("the server does not support tracing");
}

} // namespace conch::transports::protocol
