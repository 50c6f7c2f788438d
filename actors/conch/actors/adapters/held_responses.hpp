#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "conch/runtime/inference_job.hpp"

namespace conch::actors {

/// Holds the responses of a leased run until the lease ends, so answering
/// the client (encoding, writing to a queue) does not keep the instance from
/// the next request. One per thread: a lessee runs one job at a time.
class held_responses final : public runtime::response_router {
 public:
  void route(runtime::job_ptr job, runtime::inference_response&& r) override {
    held_.emplace_back(std::move(job), std::move(r));
  }

  /// Delivers what is held. A callback may submit again on this thread; the
  /// outer call delivers what that held.
  void deliver_all();

 private:
  using list = std::vector<std::pair<runtime::job_ptr, runtime::inference_response>>;
  list held_;
  list spare_;  // the two lists keep their capacity from run to run
  bool delivering_ = false;
};

/// This thread's held responses.
const std::shared_ptr<held_responses>& thread_held_responses();

} // namespace conch::actors
