#pragma once

#include <cstdint>

#include "conch/runtime/status.hpp"

namespace conch::transports::protocol {

/// Whether a frontend lets its clients register shared-memory regions and
/// name them in inference requests (Triton's `--allow-client-shm`). A
/// client that may register regions makes the server map any object under
/// /dev/shm it names, and read or write it through a model; Triton's server
/// denies it unless told otherwise, and so does every Conch frontend.
enum class client_shm : uint8_t {
  /// Registering, unregistering and naming regions are refused.
  denied,
  /// Clients register and use regions (spec §1.16).
  allowed,
};

/// UNSUPPORTED "Client shared memory is disabled. Start the server with
/// '--allow-client-shm=true' to enable.": Triton's answer, and the one a
/// frontend that denies client shared memory gives a register, an
/// unregister, or an inference request that names a region.
runtime::status client_shm_disabled();

} // namespace conch::transports::protocol
