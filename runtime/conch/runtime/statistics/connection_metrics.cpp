#include "conch/runtime/statistics/connection_metrics.hpp"

#include <iterator>
#include <unordered_map>
#include <utility>

#include <prometheus/client_metric.h>
#include <prometheus/metric_type.h>

namespace conch::runtime::statistics {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

ClientMetric::Label label(std::string name, std::string value) {
  ClientMetric::Label l;
  l.name = std::move(name);
  l.value = std::move(value);
  return l;
}

class builder {
 public:
  builder(const std::string& frontend, int port)
    : base_{label("frontend", frontend), label("port", std::to_string(port))} {}

  void add(std::vector<MetricFamily>& out, const char* name, const char* help, MetricType type,
           double value, std::vector<ClientMetric::Label> extra = {}) {
    if (out.empty() || out.back().name != name)
      out.push_back(MetricFamily{name, help, type, {}});
    ClientMetric m;
    m.label = base_;
    m.label.insert(m.label.end(), extra.begin(), extra.end());
    if (type == MetricType::Counter)
      m.counter.value = value;
    else
      m.gauge.value = value;
    out.back().metric.push_back(std::move(m));
  }

 private:
  std::vector<ClientMetric::Label> base_;
};

double value(const std::atomic<int64_t>& a) {
  return static_cast<double>(a.load(std::memory_order_relaxed));
}

} // namespace

connection_metrics::connection_metrics(std::string frontend,
                                       std::shared_ptr<const connection_stats> stats,
                                       std::shared_ptr<const byte_budget> input, bool connections)
  : frontend_(std::move(frontend)), stats_(std::move(stats)), input_(std::move(input)),
    connections_(connections) {}

std::vector<MetricFamily> connection_metrics::Collect() const {
  std::vector<MetricFamily> out;
  const auto& s = *stats_;
  builder b{frontend_, s.port.load(std::memory_order_relaxed)};
  if (connections_) {
    b.add(out, "conch_connections_open", "Connections a frontend has open", MetricType::Gauge,
          value(s.open));
    b.add(out, "conch_connections_accepted_total", "Connections a frontend accepted",
          MetricType::Counter, value(s.accepted));
    b.add(out, "conch_connections_refused_total",
          "Connections closed as soon as they were accepted, past max_connections",
          MetricType::Counter, value(s.refused));
    for (size_t i = 0; i < connection_timeout_kinds; ++i)
      b.add(out, "conch_connection_timeouts_total",
            "Connections or requests a frontend's timeouts ended, by kind", MetricType::Counter,
            value(s.timeouts[i]), {label("kind", to_string(static_cast<connection_timeout>(i)))});
  }
  for (size_t i = 0; i < request_refusal_kinds; ++i)
    b.add(out, "conch_requests_refused_total",
          "Requests a frontend refused before they reached the server, by the limit that refused them",
          MetricType::Counter, value(s.refusals[i]),
          {label("reason", to_string(static_cast<request_refusal>(i)))});
  if (input_)
    b.add(out, "conch_request_bytes_held",
          "Bytes of requests a frontend holds (its input budget in use)", MetricType::Gauge,
          static_cast<double>(input_->used()));
  if (input_)
    b.add(out, "conch_stream_backlog_closes_total",
          "Streamed answers ended because their client did not read them (max_stream_backlog)",
          MetricType::Counter, value(s.backlog_closes));
  if (input_)
    b.add(out, "conch_response_bytes_buffered", "Bytes of answers waiting to be sent to clients",
          MetricType::Gauge, value(s.response_bytes));
  return out;
}

std::vector<MetricFamily> merge_families(std::vector<MetricFamily> in) {
  std::vector<MetricFamily> out;
  std::unordered_map<std::string, size_t> index;
  out.reserve(in.size());
  for (auto& f : in) {
    auto [it, fresh] = index.emplace(f.name, out.size());
    if (fresh) {
      out.push_back(std::move(f));
      continue;
    }
    auto& into = out[it->second].metric;
    into.insert(into.end(), std::make_move_iterator(f.metric.begin()),
                std::make_move_iterator(f.metric.end()));
  }
  return out;
}

} // namespace conch::runtime::statistics
