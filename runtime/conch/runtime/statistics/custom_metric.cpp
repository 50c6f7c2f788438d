#include "conch/runtime/statistics/custom_metric.hpp"

#include <cmath>
#include <utility>

namespace conch::runtime::statistics {

result<std::unique_ptr<custom_metric>>
custom_metric::make(std::shared_ptr<custom_metric_family> family,
                    const std::map<std::string, std::string>& labels,
                    const std::vector<double>& buckets) {
  if (family == nullptr)
    return invalid_argument("a metric needs a family");
  auto kind = family->kind();
  if (kind != metric_kind::histogram && !buckets.empty())
    return invalid_argument("only a histogram metric takes buckets");
  for (size_t i = 1; i < buckets.size(); ++i)
    if (!(buckets[i - 1] < buckets[i]))
      return invalid_argument("the buckets of a histogram of family '" + family->name()
                              + "' must be strictly increasing");
  prometheus::Labels set{labels.begin(), labels.end()};
  prometheus::Counter* counter = nullptr;
  prometheus::Gauge* gauge = nullptr;
  prometheus::Histogram* histogram = nullptr;
  if (kind == metric_kind::counter)
    counter = family->acquire_counter(set);
  else if (kind == metric_kind::gauge)
    gauge = family->acquire_gauge(set);
  else
    histogram = family->acquire_histogram(set, buckets);
  if (counter == nullptr && gauge == nullptr && histogram == nullptr)
    return invalid_argument("the labels of a metric of family '" + family->name()
                            + "' are refused: a label name is [a-zA-Z_][a-zA-Z0-9_]* "
                              "and does not start with '__'");
  return std::unique_ptr<custom_metric>{
    new custom_metric(std::move(family), std::move(set), counter, gauge, histogram)};
}

custom_metric::custom_metric(std::shared_ptr<custom_metric_family> family,
                             prometheus::Labels labels, prometheus::Counter* counter,
                             prometheus::Gauge* gauge, prometheus::Histogram* histogram) noexcept
  : family_(std::move(family)), labels_(std::move(labels)), counter_(counter), gauge_(gauge),
    histogram_(histogram) {
}

custom_metric::~custom_metric() {
  family_->release(labels_);
}

double custom_metric::value() const noexcept {
  if (counter_ != nullptr)
    return counter_->Value();
  return gauge_ != nullptr ? gauge_->Value() : 0.0;
}

status custom_metric::increment(double delta) {
  if (histogram_ != nullptr)
    return unsupported("a histogram of family '" + family_->name()
                       + "' does not support increment; use observe");
  if (counter_ == nullptr) {
    gauge_->Increment(delta);
    return {};
  }
  if (!(delta >= 0) || std::isinf(delta))
    return invalid_argument("a counter of family '" + family_->name()
                            + "' only increments by a finite value >= 0");
  counter_->Increment(delta);
  return {};
}

status custom_metric::set_value(double v) {
  if (counter_ != nullptr)
    return unsupported("a counter of family '" + family_->name()
                       + "' does not support set_value; use increment");
  if (histogram_ != nullptr)
    return unsupported("a histogram of family '" + family_->name()
                       + "' does not support set_value; use observe");
  gauge_->Set(v);
  return {};
}

status custom_metric::observe(double v) {
  if (histogram_ == nullptr)
    return unsupported("a " + std::string{counter_ != nullptr ? "counter" : "gauge"}
                       + " of family '" + family_->name() + "' does not support observe");
  histogram_->Observe(v);
  return {};
}

} // namespace conch::runtime::statistics
