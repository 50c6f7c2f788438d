#include "conch/transports/shm/cuda_regions.hpp"

namespace conch::transports::shm {

runtime::status register_cuda(const std::string& name) {
  return runtime::invalid_argument("failed to register CUDA shared memory region: '" + name
                                   + "', GPUs not supported");
}

runtime::status cuda_status(const std::string& name) {
  if (name.empty())
    return runtime::status::ok();
  return runtime::not_found("Unable to find cuda shared memory region: '" + name + "'");
}

} // namespace conch::transports::shm
