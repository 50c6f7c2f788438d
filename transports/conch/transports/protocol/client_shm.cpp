#include "conch/transports/protocol/client_shm.hpp"

namespace conch::transports::protocol {

runtime::status client_shm_disabled() {
  return runtime::unsupported(
    "Client shared memory is disabled. Start the server with '--allow-client-shm=true' to "
    "enable.");
}

} // namespace conch::transports::protocol
