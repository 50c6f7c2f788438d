#include "conch/actors/scheduling/scheduler_hooks.hpp"

#include <cstring>

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/send.hpp>

#include "conch/actors/messages.hpp"
#include "conch/runtime/backends/common/job_output.hpp"
#include "conch/runtime/clock.hpp"

namespace conch::actors {

void scheduler_cancel_listener::on_cancel() noexcept {
  if (auto dest = caf::actor_cast<caf::actor>(scheduler_))
    caf::anon_send(dest, cancel_atom_v);
}

bool needs_ordering(const inference::ModelConfig& config) {
  // A sequence keeps its own order (one request of it runs at a time);
  // different sequences owe each other none.
  if (config.model_transaction_policy().decoupled() || config.has_sequence_batching())
    return false;
  // Without preserve_ordering every request is answered when it is done,
  // as in Triton: a fast request never waits behind a slow one of another
  // client, whatever the number of instances.
  return config.has_dynamic_batching() && config.dynamic_batching().preserve_ordering();
}

bool lane_eligible(const inference::ModelConfig& config) {
  return !config.model_transaction_policy().decoupled() && !config.has_dynamic_batching()
         && !config.has_sequence_batching() && !config.has_ensemble_scheduling()
         && !needs_ordering(config);
}

bool answer_from_cache(const std::shared_ptr<runtime::response_cache>& cache,
                       runtime::statistics::model_statistics& stats, const std::string& model,
                       int64_t version, const runtime::job_ptr& job) {
  if (!runtime::response_cache::cacheable(job->request()))
    return false;
  auto start = runtime::now_ns();
  auto key = runtime::response_cache::key_of(job->request(), model, version);
  auto hit = cache->lookup(key);
  auto took = runtime::now_ns() - start;
  if (!hit) {
    stats.record_cache_miss(took);
    job->set_tap(std::make_shared<runtime::cache_insert_tap>(cache, key));
    return false;
  }
  stats.record_cache_hit(took);
  job->times().queue_start = start;
  std::vector<runtime::tensor> outputs;
  outputs.reserve(hit->size());
  for (auto& t : *hit) {
    if (!job->request().allocator) {
      outputs.push_back(std::move(t)); // the entry's buffer, shared
      continue;
    }
    // The client chose where its outputs live: copied there.
    auto out = runtime::backends::common::allocate_output(*job, t.name, t.type, t.shape,
                                                          t.data.size());
    if (!out) {
      job->fail(out.error());
      return true;
    }
    if (t.data.size() > 0)
      std::memcpy(out->data.data(), t.data.data(), t.data.size());
    outputs.push_back(std::move(*out));
  }
  runtime::backends::common::respond_with(*job, std::move(outputs), true);
  return true;
}

bool answers_after_execute(const inference::ModelConfig& config) {
  return config.model_transaction_policy().decoupled() || config.has_ensemble_scheduling();
}

std::vector<runtime::backends::instance_context>
instance_contexts(const inference::ModelConfig& config) {
  std::vector<runtime::backends::instance_context> out;
  if (config.has_ensemble_scheduling() && config.instance_group_size() == 0) {
    out.push_back({config.name() + "_0", inference::ModelInstanceGroup::KIND_CPU, 0, 0});
    return out;
  }
  for (const auto& group : config.instance_group()) {
    auto count = std::max(1, group.count());
    if (group.kind() == inference::ModelInstanceGroup::KIND_GPU && group.gpus_size() > 0) {
      int index = 0;
      for (auto gpu : group.gpus())
        for (int i = 0; i < count; ++i)
          out.push_back({group.name() + "_" + std::to_string(index++), group.kind(), gpu,
                         out.size()});
      continue;
    }
    for (int i = 0; i < count; ++i)
      out.push_back({group.name() + "_" + std::to_string(i), group.kind(), 0, out.size()});
  }
  return out;
}

} // namespace conch::actors
