#pragma once

#include <atomic>
#include <functional>
#include <memory>

#include "conch/runtime/statistics/connection_stats.hpp"
#include "conch/actors/frontend_transport.hpp"
#include "conch/runtime/inference_job.hpp"

namespace conch::actors {

/// The frontend of the in-process API (conch::server::submit, the Python
/// binding): admission and the in-flight count of requests submitted by the
/// embedding program. Like every frontend it is stopped before the server's
/// adapters and models, once its in-flight requests are answered.
/// Thread-safe: admit() and the job callbacks run on any thread.
class inprocess_frontend final : public frontend_transport,
                                 public runtime::job_observer,
                                 public std::enable_shared_from_this<inprocess_frontend> {
 public:
  // -- frontend_transport ----------------------------------------------------
  std::string name() const override { return "in-process"; }
  runtime::status start() override;
  void begin_stop(std::function<void()> drained) override;
  void abort() override;

  // -- request path ----------------------------------------------------------

  /// What admit() decided.
  enum class admission { admitted, stopping, busy };

  /// At most `limit` requests in flight (0: no limit). Set before start.
  void set_max_inflight(int64_t limit) noexcept { limit_ = limit; }

  /// Counts `job` as in flight and observes its completion; `stopping` or
  /// `busy` (and the job untouched) when the frontend does not admit it.
  admission admit(runtime::inference_job& job) noexcept;

  /// Requests submitted and not yet answered.
  int64_t in_flight() const noexcept { return in_flight_.load(std::memory_order_acquire); }

  /// What the frontend counts (its refusals past max_inflight), for the
  /// server's metrics.
  const std::shared_ptr<runtime::statistics::connection_stats>& stats() const noexcept {
    return stats_;
  }

  void on_complete(const runtime::inference_job&, const runtime::status&, uint64_t) override;

 private:
  void release() noexcept;
  void fire() noexcept;

  std::atomic<bool> accepting_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> fired_{false};
  std::atomic<int64_t> in_flight_{0};
  int64_t limit_ = 0;
  std::function<void()> drained_;
  std::shared_ptr<runtime::statistics::connection_stats> stats_ =
    std::make_shared<runtime::statistics::connection_stats>();
};

} // namespace conch::actors
