#include "conch/runtime/statistics/custom_metric.hpp"

#include <cmath>
#include <utility>

namespace conch::runtime::statistics {

result<std::unique_ptr<custom_metric>>
custom_metric::make(std::shared_ptr<custom_metric_family> family,
                    const std::map<std::string, std::string>& labels) {
  if (family == nullptr)
    return invalid_argument("a metric needs a family");
  prometheus::Labels set{labels.begin(), labels.end()};
  prometheus::Counter* counter = nullptr;
  prometheus::Gauge* gauge = nullptr;
  if (family->kind() == metric_kind::counter)
    counter = family->acquire_counter(set);
  else
    gauge = family->acquire_gauge(set);
  if (counter == nullptr && gauge == nullptr)
    return invalid_argument("the labels of a metric of family '" + family->name()
                            + "' are refused: a label name is [a-zA-Z_][a-zA-Z0-9_]* "
                              "and does not start with '__'");
  return std::unique_ptr<custom_metric>{
    new custom_metric(std::move(family), std::move(set), counter, gauge)};
}

custom_metric::custom_metric(std::shared_ptr<custom_metric_family> family,
                             prometheus::Labels labels, prometheus::Counter* counter,
                             prometheus::Gauge* gauge) noexcept
  : family_(std::move(family)), labels_(std::move(labels)), counter_(counter), gauge_(gauge) {
}

custom_metric::~custom_metric() {
  family_->release(labels_);
}

double custom_metric::value() const noexcept {
  return counter_ != nullptr ? counter_->Value() : gauge_->Value();
}

status custom_metric::increment(double delta) {
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
  gauge_->Set(v);
  return {};
}

} // namespace conch::runtime::statistics
