#include "machine_description.hpp"

#include <fstream>
#include <sstream>

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace conch::bench {

namespace {

std::string cpu_model() {
  std::ifstream in{"/proc/cpuinfo"};
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  return "unknown";
}

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0)
    return -1;
  return CPU_COUNT(&set);
}

// Other work on the machine skews every figure; the load average shows it.
std::string load_average() {
  std::ifstream in{"/proc/loadavg"};
  std::string one, five, fifteen;
  if (!(in >> one >> five >> fifteen))
    return "unknown";
  return one + " " + five + " " + fifteen;
}

std::string kernel() {
  utsname u{};
  if (uname(&u) != 0)
    return "unknown";
  return std::string{u.sysname} + " " + u.release + " " + u.machine;
}

} // namespace

std::string machine_description() {
  std::ostringstream out;
  out << "machine: " << sysconf(_SC_NPROCESSORS_ONLN) << " CPUs online, " << usable_cpus()
      << " usable (nproc)\n"
      << "cpu:     " << cpu_model() << "\n"
      << "kernel:  " << kernel() << "\n"
      << "load:    " << load_average() << " (1, 5, 15 min)\n"
#ifdef NDEBUG
      << "build:   optimised (NDEBUG)\n";
#else
      << "build:   debug (assertions on): figures are not representative\n";
#endif
  return out.str();
}

} // namespace conch::bench
