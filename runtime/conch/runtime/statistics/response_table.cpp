#include "conch/runtime/statistics/response_table.hpp"

#include "conch/runtime/statistics/atomic_duration.hpp"

namespace conch::runtime::statistics {

namespace {

void add(duration_stat& d, uint64_t ns) {
  d.count += 1;
  d.ns += ns;
}

// The bucket a response falls in.
duration_stat& bucket(response_stat& s, const inference_response& r) {
  if (r.error.code() == errc::cancelled)
    return s.cancel;
  if (!r.error.is_ok())
    return s.fail;
  if (r.outputs.empty())
    return s.empty_response;
  return s.success;
}

} // namespace

void response_table::record(const inference_job& job, const inference_response& response,
                            uint64_t now) {
  const auto& t = job.times();
  uint64_t index = job.response_count() > 0 ? job.response_count() - 1 : 0;
  std::lock_guard<std::mutex> guard{mutex_};
  uint64_t from = t.exec_start != 0 ? t.exec_start : t.arrival;
  if (auto i = last_response_.find(&job); i != last_response_.end())
    from = i->second;
  uint64_t infer_ns = span_ns(from, now);
  uint64_t output_ns = 0;
  if (t.output_start > from && t.output_start <= now) {
    infer_ns = t.output_start - from;
    output_ns = now - t.output_start;
  }
  auto& s = stats_[index];
  auto& b = bucket(s, response);
  add(b, infer_ns + output_ns);
  // Empty and cancelled responses did no compute worth averaging in.
  if (&b == &s.success || &b == &s.fail) {
    add(s.compute_infer, infer_ns);
    add(s.compute_output, output_ns);
  }
  last_response_[&job] = now;
}

void response_table::forget(const inference_job& job) {
  std::lock_guard<std::mutex> guard{mutex_};
  last_response_.erase(&job);
}

std::map<uint64_t, response_stat> response_table::snapshot() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return stats_;
}

} // namespace conch::runtime::statistics
