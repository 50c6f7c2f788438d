#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "conch/runtime/inference_job.hpp"
#include "conch/runtime/statistics/atomic_duration.hpp"
#include "conch/runtime/statistics/batch_table.hpp"
#include "conch/runtime/statistics/model_metrics.hpp"
#include "conch/runtime/statistics/response_table.hpp"
#include "conch/runtime/statistics/statistics_snapshot.hpp"

namespace conch::runtime::statistics {

/// The statistics record of one loaded model version (the statistics
/// extension's `model_stats` entry) and the feed of its Prometheus series.
/// Attached to each job as its model observer; the scheduler and the
/// instances call the other hooks. Thread-safe: atomics only, except the
/// response statistics of decoupled models (one mutex, see response_table).
/// Metrics are updated as events happen, never on an interval.
class model_statistics : public job_observer {
 public:
  // -- constructors ----------------------------------------------------------

  /// The record of `name` version `version`. Batch sizes 1..max_batch_size
  /// (at least 1) get a lock-free slot up front (see batch_table). `metrics`
  /// may be null: the record is kept, no series are updated.
  model_statistics(std::string name, int64_t version, bool decoupled, int32_t max_batch_size,
                   std::unique_ptr<model_metrics> metrics);

  // -- properties ------------------------------------------------------------

  /// The model's name.
  const std::string& name() const noexcept { return name_; }
  /// The model version this record belongs to.
  int64_t version() const noexcept { return version_; }
  /// True when the model sends any number of responses per request.
  bool decoupled() const noexcept { return decoupled_; }

  /// The model's series, or null when it has none.
  model_metrics* metrics() const noexcept { return metrics_.get(); }

  /// Jobs queued and not yet taken by a backend.
  int64_t pending() const noexcept { return pending_.load(std::memory_order_relaxed); }

  // -- scheduler and instance hooks -----------------------------------------

  /// A job entered the model's queue.
  void on_enqueue() noexcept;

  /// `n` jobs left the queue: a backend started executing them, or they were
  /// rejected or cancelled while queued.
  void on_dequeue(std::size_t n) noexcept;

  /// Counts one model execution of `batch_size` inferences. An instance
  /// calls it before the backend runs, so that the counts include a request
  /// by the time its client hears the answer.
  void count_execution(std::size_t batch_size) noexcept;

  /// The timestamps (now_ns(); 0 when not reached) of an execution counted
  /// with count_execution.
  void record_execution_times(std::size_t batch_size, uint64_t exec_start, uint64_t input_end,
                              uint64_t output_start, uint64_t exec_end) noexcept;

  /// count_execution and record_execution_times together.
  void record_execution(std::size_t batch_size, uint64_t exec_start, uint64_t input_end,
                        uint64_t output_start, uint64_t exec_end) noexcept;

  /// A request answered from the response cache, and the lookup's time;
  /// a request looked up and not found, and the lookup's time.
  void record_cache_hit(uint64_t lookup_ns) noexcept;
  void record_cache_miss(uint64_t lookup_ns) noexcept;

  /// How long loading the version took.
  void record_load_duration(double seconds) noexcept;

  /// Takes the version's series out of the exposition (model_metrics::
  /// retire): the repository calls it once no loaded version uses this
  /// record. The record itself stays readable. Idempotent.
  void retire_metrics() noexcept;

  // -- job_observer ----------------------------------------------------------

  /// Counts a decoupled model's response by its index, and observes the
  /// first one in the first-response histogram; ignored otherwise.
  void on_response(const inference_job& job, const inference_response& response,
                   uint64_t now) override;

  /// Counts the request as a success (with its queue and compute times) or
  /// as a failure of the kind the job recorded.
  void on_complete(const inference_job& job, const status& outcome, uint64_t now) override;

  // -- reading ---------------------------------------------------------------

  /// A copy of the whole record.
  statistics_snapshot snapshot() const;

 private:
  void record_success(const job_times& t, uint64_t now, uint64_t request_ns) noexcept;
  void record_failure(const inference_job& job, const status& outcome,
                      uint64_t request_ns) noexcept;

  std::string name_;
  int64_t version_;
  bool decoupled_;
  std::unique_ptr<model_metrics> metrics_;
  std::atomic<int64_t> pending_{0};
  std::atomic<uint64_t> last_inference_{0};
  std::atomic<uint64_t> inference_count_{0};
  std::atomic<uint64_t> execution_count_{0};
  atomic_duration success_;
  atomic_duration fail_;
  atomic_duration queue_;
  atomic_duration compute_input_;
  atomic_duration compute_infer_;
  atomic_duration compute_output_;
  atomic_duration cache_hit_;
  atomic_duration cache_miss_;
  batch_table batches_;
  response_table responses_;
};

} // namespace conch::runtime::statistics
