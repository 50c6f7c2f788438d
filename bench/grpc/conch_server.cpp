// Conch's gRPC frontend in a plain C++ process, for profiling the gRPC path
// without Python: the example repository's identity_fp32 served by a
// server_host whose scheduler settings can be varied.
//
//   conch-bench-grpc-conch [--port PORT] [--scheduler-threads N]
//                          [--poll-attempts N]
//
// Prints "listening on PORT" once serving, then serves until SIGINT or
// SIGTERM. `make bench` measures `conch serve` itself; this one shows how
// much of a figure is the process around the frontend.

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include "conch/actors/grpc_frontend.hpp"
#include "conch/actors/server_host.hpp"

#ifndef CONCH_SOURCE_DIR
#error "CONCH_SOURCE_DIR must name the source tree"
#endif

namespace {

volatile std::sig_atomic_t stop_requested = 0;

} // namespace

int main(int argc, char** argv) {
  int port = 0;
  conch::actors::host_options host;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--port") == 0)
      port = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--scheduler-threads") == 0)
      host.scheduler_threads = static_cast<size_t>(std::atoi(argv[i + 1]));
    else if (std::strcmp(argv[i], "--poll-attempts") == 0)
      host.poll_attempts = static_cast<size_t>(std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "usage: %s [--port P] [--scheduler-threads N] [--poll-attempts N]\n",
                   argv[0]);
      return 2;
    }
  }
  conch::actors::server_options options;
  options.model_repository = {std::string{CONCH_SOURCE_DIR}
                              + "/python/examples/example_model_repository"};
  options.model_control_mode = conch::actors::control_mode::explicit_;
  options.startup_models = {"identity_fp32"};
  auto started = conch::actors::server_host::start(options, host);
  if (!started) {
    std::fprintf(stderr, "%s\n", started.error().to_string().c_str());
    return 1;
  }
  auto& hosted = *started;
  conch::actors::grpc_options grpc;
  grpc.address = "127.0.0.1";
  grpc.port = port;
  conch::actors::grpc_frontend frontend{hosted->server(), grpc};
  if (auto st = frontend.start(); !st) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  std::printf("listening on %d\n", frontend.port());
  std::fflush(stdout);
  std::signal(SIGINT, [](int) { stop_requested = 1; });
  std::signal(SIGTERM, [](int) { stop_requested = 1; });
  while (!stop_requested) {
    timespec tick{0, 50'000'000};
    nanosleep(&tick, nullptr);
  }
  (void) frontend.stop();
  return 0;
}
