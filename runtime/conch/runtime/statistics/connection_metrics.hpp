#pragma once

#include <memory>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "conch/runtime/statistics/connection_stats.hpp"

namespace conch::runtime::statistics {

/// The series of one frontend's edge, labelled `frontend` (its name:
/// "HTTP", "gRPC", "Metrics", "in-process") and `port`, rendered from its
/// connection_stats at each scrape:
///
///   conch_connections_open                 gauge
///   conch_connections_accepted_total       counter
///   conch_connections_refused_total        counter (past max_connections)
///   conch_connection_timeouts_total{kind}  counter (header, body, keepalive, write, drain)
///   conch_requests_refused_total{reason}   counter (inflight, input_budget, body_size, header_size)
///   conch_request_bytes_held               gauge (the input budget in use)
///   conch_stream_backlog_closes_total      counter (past max_stream_backlog)
///   conch_response_bytes_buffered          gauge
///
/// Connection series are left out for frontends without connections of
/// their own (`connections` false: gRPC, whose connections gRPC keeps, and
/// in-process); the byte gauges for those without an input budget
/// (in-process). Thread-safe.
class connection_metrics final : public prometheus::Collectable {
 public:
  connection_metrics(std::string frontend, std::shared_ptr<const connection_stats> stats,
                     std::shared_ptr<const byte_budget> input = nullptr, bool connections = true);

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  std::string frontend_;
  std::shared_ptr<const connection_stats> stats_;
  std::shared_ptr<const byte_budget> input_;
  bool connections_;
};

/// Families with one name merged into one (the series of several sources
/// under one HELP and TYPE), in first-seen order.
std::vector<prometheus::MetricFamily> merge_families(std::vector<prometheus::MetricFamily> in);

} // namespace conch::runtime::statistics
