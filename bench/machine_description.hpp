#pragma once

#include <string>

namespace conch::bench {

/// A few lines naming the machine a benchmark ran on: online and usable
/// CPUs, the CPU model from /proc/cpuinfo, the kernel, the load average and
/// whether the build is optimised.
std::string machine_description();

} // namespace conch::bench
