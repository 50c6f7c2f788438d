#include "conch/runtime/statistics/custom_metric_family.hpp"

#include <exception>
#include <set>
#include <utility>

namespace conch::runtime::statistics {

namespace {

// The custom family names taken in each registry: prometheus-cpp would merge
// two families of one name, and the first removal would pull the series of
// the other from under it.
struct taken_names {
  std::mutex mutex;
  std::set<std::pair<const prometheus::Registry*, std::string>> names;
};

// Never destroyed: families held by Python objects may go after static
// destructors have run.
taken_names& taken() {
  static auto* instance = new taken_names;
  return *instance;
}

} // namespace

const std::shared_ptr<prometheus::Registry>& custom_metric_family::process_registry() {
  static const auto registry = std::make_shared<prometheus::Registry>();
  return registry;
}

result<std::shared_ptr<custom_metric_family>>
custom_metric_family::make(std::shared_ptr<prometheus::Registry> registry, metric_kind kind,
                           const std::string& name, const std::string& description) {
  if (registry == nullptr)
    return invalid_argument("a metric family needs a registry");
  if (kind != metric_kind::counter && kind != metric_kind::gauge
      && kind != metric_kind::histogram)
    return invalid_argument("a metric family is a counter, a gauge or a histogram");
  if (name.rfind("nv_", 0) == 0)
    return invalid_argument("metric family name '" + name
                            + "': the prefix 'nv_' is reserved for Conch's own families");
  auto key = std::make_pair(static_cast<const prometheus::Registry*>(registry.get()), name);
  {
    std::lock_guard<std::mutex> guard{taken().mutex};
    if (!taken().names.insert(key).second)
      return already_exists("metric family '" + name + "' already exists");
  }
  std::shared_ptr<custom_metric_family> family{
    new custom_metric_family(std::move(registry), kind, name, description)};
  try {
    if (kind == metric_kind::counter)
      family->counters_ =
        &prometheus::BuildCounter().Name(name).Help(description).Register(*family->registry_);
    else if (kind == metric_kind::gauge)
      family->gauges_ =
        &prometheus::BuildGauge().Name(name).Help(description).Register(*family->registry_);
    else
      family->histograms_ =
        &prometheus::BuildHistogram().Name(name).Help(description).Register(*family->registry_);
  } catch (const std::exception& e) {
    // The destructor gives the name back.
    return invalid_argument("metric family name '" + name + "' is refused: " + e.what());
  }
  return family;
}

custom_metric_family::custom_metric_family(std::shared_ptr<prometheus::Registry> registry,
                                           metric_kind kind, std::string name,
                                           std::string description)
  : registry_(std::move(registry)), kind_(kind), name_(std::move(name)),
    description_(std::move(description)) {
}

custom_metric_family::~custom_metric_family() {
  if (counters_ != nullptr)
    registry_->Remove(*counters_);
  if (gauges_ != nullptr)
    registry_->Remove(*gauges_);
  if (histograms_ != nullptr)
    registry_->Remove(*histograms_);
  std::lock_guard<std::mutex> guard{taken().mutex};
  taken().names.erase(std::make_pair(static_cast<const prometheus::Registry*>(registry_.get()),
                                     name_));
}

prometheus::Counter*
custom_metric_family::acquire_counter(const prometheus::Labels& labels) noexcept {
  std::lock_guard<std::mutex> guard{mutex_};
  try {
    auto* series = &counters_->Add(labels);
    ++uses_[labels];
    return series;
  } catch (const std::exception&) {
    return nullptr;
  }
}

prometheus::Gauge*
custom_metric_family::acquire_gauge(const prometheus::Labels& labels) noexcept {
  std::lock_guard<std::mutex> guard{mutex_};
  try {
    auto* series = &gauges_->Add(labels);
    ++uses_[labels];
    return series;
  } catch (const std::exception&) {
    return nullptr;
  }
}

prometheus::Histogram*
custom_metric_family::acquire_histogram(const prometheus::Labels& labels,
                                        const std::vector<double>& buckets) noexcept {
  std::lock_guard<std::mutex> guard{mutex_};
  try {
    // Equal labels find the series made first, with its buckets.
    auto* series = &histograms_->Add(labels, prometheus::Histogram::BucketBoundaries{buckets});
    ++uses_[labels];
    return series;
  } catch (const std::exception&) {
    return nullptr;
  }
}

void custom_metric_family::release(const prometheus::Labels& labels) noexcept {
  std::lock_guard<std::mutex> guard{mutex_};
  auto it = uses_.find(labels);
  if (it == uses_.end() || --it->second > 0)
    return;
  uses_.erase(it);
  // Add() with existing labels finds the series without allocating.
  try {
    if (counters_ != nullptr)
      counters_->Remove(&counters_->Add(labels));
    else if (gauges_ != nullptr)
      gauges_->Remove(&gauges_->Add(labels));
    else
      histograms_->Remove(&histograms_->Add(labels, prometheus::Histogram::BucketBoundaries{}));
  } catch (const std::exception&) {
  }
}

} // namespace conch::runtime::statistics
