#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include <caf/actor.hpp>

#include "conch/actors/frontend_health.hpp"
#include "conch/actors/frontend_transport.hpp"
#include "conch/actors/server.hpp"
#include "conch/runtime/result.hpp"
#include "conch/runtime/statistics/connection_metrics.hpp"

namespace conch::actors {

/// A transport that listens on a TCP port.
class listening_transport : public frontend_transport {
 public:
  /// The bound port; any thread may read it once start() returned.
  virtual uint16_t port() const noexcept = 0;
};

/// INVALID_ARG "port must be between 0 and 65535, got <port>" when out of range.
runtime::status check_port(int port);

/// INVALID_ARG "thread_count must be greater than 0, got <n>" when n < 1.
runtime::status check_thread_count(int n);

/// How long a transport's stop may wait on its clients when the server's
/// exit timeout is `exit_timeout` seconds: that timeout less a margin (a
/// fifth of it, at most a second) for the stop's own steps, and at least a
/// millisecond. A frontend stop given this budget ends before the exit
/// timeout does, however slow its clients are.
std::chrono::milliseconds transport_stop_budget(uint32_t exit_timeout);

/// The lifecycle the network frontends (HTTP, gRPC, metrics) share: start()
/// adds a listening transport to the server's supervision tree, so the
/// server stops it first when it stops; stop() stops it alone, letting what
/// is in flight finish; it may start again after a stop; it keeps its server
/// alive. start() and stop() block until done, so they must not be called
/// from a thread of the actor system's scheduler. Thread-safe: no lock is
/// held while they wait, and stops that race (this frontend's from several
/// threads, the server's) all return once the one stop they share is done.
class listening_frontend {
 public:
  listening_frontend(const listening_frontend&) = delete;
  listening_frontend& operator=(const listening_frontend&) = delete;

  /// Stops the frontend if it runs.
  ~listening_frontend();

  /// Stops serving. UNAVAILABLE "<kind> server is not running." when not
  /// running; a no-op when the server stopped it already or stops it now;
  /// waits for a stop of this frontend that another thread runs.
  runtime::status stop();

  /// The port the latest start bound (the picked one for port 0); 0 before,
  /// and 0 once the frontend failed (see failure()).
  uint16_t port() const;

  /// How often the running frontend's transport was restarted after it
  /// failed; each restart binds the same port.
  size_t restarts() const;

  /// UNAVAILABLE "<kind> server failed: <why>" once the transport failed
  /// more often than the server's restart_budget allows: it serves no more
  /// (start() says so too) until stop() and start(). OK otherwise.
  runtime::status failure() const;

  /// Fault injection for tests: makes the running transport fail as a crash
  /// of one of its threads would. Does nothing when not running.
  void inject_failure();

 protected:
  /// `service` names the frontend in log lines ("HTTPService"), `kind` in
  /// errors ("HTTP" gives "HTTP server is already running.").
  listening_frontend(server& srv, std::string service, std::string kind);

  /// Stops the frontend if it runs; idempotent. Subclasses call it in their
  /// destructors, since their transport makers read their members.
  void shutdown();

  /// Makes a transport: on the options' port when `port` is 0, else on
  /// `port` (a restart after a failure binds the port the start bound).
  using transport_maker =
    std::function<runtime::result<std::shared_ptr<listening_transport>>(uint16_t port)>;

  /// Makes the transport and adds it to the server, which restarts it with
  /// `make` when it fails. UNAVAILABLE when the server stopped or the
  /// frontend failed, ALREADY_EXISTS when running, else what `make` or the
  /// transport's start answer. `address` is for the log line.
  runtime::status start_transport(const std::string& address, const transport_maker& make);

  /// Exports `edge_` (and the bytes `input` holds, when given) in the
  /// server's metrics, labelled with the frontend's kind, for as long as the
  /// frontend lives. Called once, by the subclass's constructor.
  void publish_edge(std::shared_ptr<const runtime::statistics::byte_budget> input,
                    bool connections = true);

  server srv_;
  /// What the frontend's transports count at its edge; kept across restarts.
  std::shared_ptr<runtime::statistics::connection_stats> edge_ =
    std::make_shared<runtime::statistics::connection_stats>();

 private:
  std::string service_;
  std::string kind_;
  std::string address_;  // guarded by mutex_
  mutable std::mutex mutex_;
  frontend_actor supervisor_;               // guarded by mutex_
  frontend_actor stopping_;                 // guarded by mutex_
  bool starting_ = false;                   // guarded by mutex_
  uint16_t port_ = 0;                       // guarded by mutex_
  std::shared_ptr<frontend_health> health_; // guarded by mutex_
  std::shared_ptr<runtime::statistics::connection_metrics> edge_metrics_;
};

} // namespace conch::actors
