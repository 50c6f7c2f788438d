#include "conch/runtime/statistics/metrics_registry.hpp"

#include <exception>
#include <iterator>

#include <prometheus/text_serializer.h>

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

} // namespace

metrics_registry::metrics_registry()
  : families_(std::make_shared<metric_families>(std::make_shared<prometheus::Registry>())) {
}

metrics_registry::~metrics_registry() = default;

std::shared_ptr<prometheus::Registry> metrics_registry::registry() const {
  return families_->registry();
}

std::unique_ptr<model_metrics>
metrics_registry::add_model(const std::string& model, int64_t version,
                            const std::map<std::string, std::string>& metric_tags) {
  prometheus::Labels labels{{"model", model}, {"version", std::to_string(version)}};
  for (const auto& [key, value] : metric_tags)
    labels[tag_label(key)] = value;
  const auto* series = families_->acquire(labels);
  if (series == nullptr)
    return nullptr;
  return std::make_unique<model_metrics>(families_, std::move(labels), *series);
}

std::string metrics_registry::serialize() const {
  // Collect() and the serializer allocate; a scrape that runs out of memory
  // answers with nothing rather than taking the server down.
  try {
    auto families = families_->registry()->Collect();
    auto custom = custom_metric_family::process_registry()->Collect();
    families.insert(families.end(), std::make_move_iterator(custom.begin()),
                    std::make_move_iterator(custom.end()));
    return prometheus::TextSerializer().Serialize(families);
  } catch (const std::exception&) {
    return {};
  }
}

} // namespace conch::runtime::statistics
