#include "conch/actors/server/device_memory_setup.hpp"

#include "conch/runtime/device_memory.hpp"
#include "conch/runtime/logging/log.hpp"

// The one place that knows whether the CUDA target was built.
#ifdef CONCH_HAVE_CUDA
#include "conch/runtime/cuda/cuda_memory.hpp"
#endif

namespace conch::actors {

void install_device_memory() {
#ifdef CONCH_HAVE_CUDA
  if (runtime::get_device_memory())
    return;
  int devices = runtime::cuda::register_cuda_memory();
  CONCH_LOG_INFO << "CUDA device memory: " << devices << " GPU"
                 << (devices == 1 ? "" : "s") << " found";
#endif
}

} // namespace conch::actors
