#include "conch/actors/scheduling/model_readiness.hpp"

#include <atomic>
#include <utility>

namespace conch::actors {

namespace {

/// The answers of one check: the first "not ready", or the last "ready".
struct tally {
  tally(size_t n, std::function<void(bool)> d) : left(n), done(std::move(d)) {}
  std::atomic<size_t> left;
  std::atomic<bool> answered{false};
  std::function<void(bool)> done;

  void hear(bool ready) {
    if (!ready) {
      if (!answered.exchange(true))
        done(false);
    } else if (left.fetch_sub(1) == 1 && !answered.exchange(true)) {
      done(true);
    }
  }
};

} // namespace

model_readiness::model_readiness(size_t instances) : probes_(instances) {}

void model_readiness::set(size_t index,
                          std::shared_ptr<runtime::backends::readiness_probe> probe) {
  std::lock_guard<std::mutex> lock{mutex_};
  if (index < probes_.size())
    probes_[index] = std::move(probe);
}

void model_readiness::check(std::function<void(bool)> done) const {
  std::vector<std::shared_ptr<runtime::backends::readiness_probe>> asked;
  {
    std::lock_guard<std::mutex> lock{mutex_};
    for (const auto& p : probes_)
      if (p)
        asked.push_back(p);
  }
  if (asked.empty())
    return done(true);
  auto answers = std::make_shared<tally>(asked.size(), std::move(done));
  for (const auto& p : asked)
    p->probe([answers](bool ready) { answers->hear(ready); });
}

} // namespace conch::actors
