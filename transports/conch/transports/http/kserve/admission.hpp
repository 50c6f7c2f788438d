#pragma once

#include "conch/transports/protocol/admission.hpp"

namespace conch::transports::http::kserve {

/// The KServe HTTP frontend's admission is the protocol-neutral one.
using protocol::admission;

} // namespace conch::transports::http::kserve
