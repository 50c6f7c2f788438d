// conch-serve-kserve: the C++ form of
//   server = conch.Server(model_repository=...).start(wait_until_ready=True)
//   with KServeHttp(server), KServeGrpc(server), Metrics(server): ...
// Serves a model repository over KServe v2 HTTP and gRPC and Prometheus
// metrics until SIGINT or SIGTERM, then stops: the frontends drain first,
// then the models.
//
//   conch-serve-kserve <repository> [http-port grpc-port metrics-port]
//
// Ports default to 8000, 8001 and 8002; 0 picks a free one. The bound ports
// are printed on one line once every frontend listens.

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>

#include "conch/actors/grpc_frontend.hpp"
#include "conch/actors/http_frontend.hpp"
#include "conch/actors/metrics_frontend.hpp"
#include "conch/actors/server_host.hpp"

namespace {

int port_argument(int argc, char** argv, int index, int fallback) {
  return index < argc ? std::atoi(argv[index]) : fallback;
}

// Waits for SIGINT or SIGTERM, blocked in every thread (the frontends' and
// the actor system's inherit the mask), so only this wait receives them.
int wait_for_stop_signal(const sigset_t& signals) {
  int received = 0;
  sigwait(&signals, &received);
  return received;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 5) {
    std::cerr << "usage: conch-serve-kserve <repository> [http-port grpc-port metrics-port]\n";
    return 2;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  conch::server_options options;
  options.model_repository = {argv[1]};
  // This program has no Python backends: the models that need them are
  // listed as UNAVAILABLE, and the server is ready with the others.
  options.exit_on_error = false;
  options.strict_readiness = false;
  auto host = conch::actors::server_host::start(options);
  if (!host) {
    std::cerr << "conch-serve-kserve: " << host.error().to_string() << "\n";
    return 1;
  }
  auto& srv = (*host)->server();

  conch::http_options http_options;
  http_options.port = port_argument(argc, argv, 2, 8000);
  conch::grpc_options grpc_options;
  grpc_options.port = port_argument(argc, argv, 3, 8001);
  conch::metrics_options metrics_options;
  metrics_options.port = port_argument(argc, argv, 4, 8002);
  conch::http_frontend http{srv, http_options};
  conch::grpc_frontend grpc{srv, grpc_options};
  conch::metrics_frontend metrics{srv, metrics_options};
  for (auto started : {http.start(), grpc.start(), metrics.start()}) {
    if (!started.is_ok()) {
      std::cerr << "conch-serve-kserve: " << started.to_string() << "\n";
      return 1;
    }
  }
  std::cout << "listening: http " << http.port() << " grpc " << grpc.port() << " metrics "
            << metrics.port() << std::endl;

  int signal = wait_for_stop_signal(signals);
  std::cout << "signal " << signal << ": stopping" << std::endl;
  auto stopped = srv.stop();
  std::cout << "stopped: " << stopped.to_string() << std::endl;
  return stopped.is_ok() ? 0 : 1;
}
