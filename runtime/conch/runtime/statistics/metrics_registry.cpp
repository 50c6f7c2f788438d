#include "conch/runtime/statistics/metrics_registry.hpp"

#include <algorithm>
#include <exception>
#include <iterator>

#include <prometheus/text_serializer.h>

#include "conch/runtime/statistics/abandoned_threads.hpp"
#include "conch/runtime/statistics/connection_metrics.hpp"
#include "conch/runtime/statistics/custom_metric_family.hpp"
#include "conch/runtime/statistics/metric_families.hpp"

namespace conch::runtime::statistics {

namespace {

// "_" + the key with every character outside [A-Za-z0-9_] replaced, so that a
// tag such as "team-name" still yields a label.
std::string tag_label(const std::string& key) {
  std::string out = "_";
  for (char c : key) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out += ok ? c : '_';
  }
  return out;
}

// Triton's default first-response buckets, in milliseconds.
const std::vector<double> default_first_response_buckets = {100, 500, 2000, 5000};

series_options series_options_for(const metrics_settings& settings,
                                  const model_metric_options& model) {
  series_options o;
  o.counter_latencies = settings.counter_latencies;
  if (settings.summary_latencies)
    for (const auto& q : settings.summary_quantiles)
      o.summary_quantiles.emplace_back(q.quantile, q.error);
  // prometheus-cpp needs strictly ascending bounds; the model config is
  // validated so, and anything else keeps the defaults.
  bool ascending = std::adjacent_find(model.first_response_buckets.begin(),
                                      model.first_response_buckets.end(),
                                      [](double a, double b) { return !(a < b); })
                   == model.first_response_buckets.end();
  o.response_cache = model.response_cache && settings.counter_latencies;
  if (settings.histogram_latencies && model.decoupled)
    o.first_response_buckets = model.first_response_buckets.empty() || !ascending
                                 ? default_first_response_buckets
                                 : model.first_response_buckets;
  return o;
}

} // namespace

metrics_registry::metrics_registry(metrics_settings settings)
  : settings_(std::move(settings)),
    families_(std::make_shared<metric_families>(std::make_shared<prometheus::Registry>())) {
  // The process-wide abandoned-thread series exist, at 0, from the first
  // registry on, so that a dashboard finds them before anything happened.
  (void) abandoned_threads::total();
}

metrics_registry::~metrics_registry() = default;

std::shared_ptr<prometheus::Registry> metrics_registry::registry() const {
  return families_->registry();
}

std::unique_ptr<model_metrics>
metrics_registry::add_model(const std::string& model, int64_t version,
                            const std::map<std::string, std::string>& metric_tags,
                            const model_metric_options& options) {
  prometheus::Labels labels{{"model", model}, {"version", std::to_string(version)}};
  for (const auto& [key, value] : metric_tags)
    labels[tag_label(key)] = value;
  const auto* series = families_->acquire(labels, series_options_for(settings_, options));
  if (series == nullptr)
    return nullptr;
  return std::make_unique<model_metrics>(families_, std::move(labels), *series);
}

void metrics_registry::add_source(std::weak_ptr<const prometheus::Collectable> source) {
  std::lock_guard<std::mutex> guard{sources_mutex_};
  sources_.push_back(std::move(source));
}

std::string metrics_registry::serialize() const {
  // Collect() and the serializer allocate; a scrape that runs out of memory
  // answers with nothing rather than taking the server down.
  try {
    auto families = families_->registry()->Collect();
    auto custom = custom_metric_family::process_registry()->Collect();
    families.insert(families.end(), std::make_move_iterator(custom.begin()),
                    std::make_move_iterator(custom.end()));
    std::vector<std::shared_ptr<const prometheus::Collectable>> live;
    {
      std::lock_guard<std::mutex> guard{sources_mutex_};
      for (auto it = sources_.begin(); it != sources_.end();) {
        if (auto source = it->lock()) {
          live.push_back(std::move(source));
          ++it;
        } else {
          it = sources_.erase(it);  // its frontend is gone
        }
      }
    }
    if (!live.empty()) {
      for (const auto& source : live) {
        auto more = source->Collect();
        families.insert(families.end(), std::make_move_iterator(more.begin()),
                        std::make_move_iterator(more.end()));
      }
      families = merge_families(std::move(families));
    }
    return prometheus::TextSerializer().Serialize(families);
  } catch (const std::exception&) {
    return {};
  }
}

} // namespace conch::runtime::statistics
