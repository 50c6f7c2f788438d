#include "conch/runtime/batching/sequence_queue.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <utility>

#include "conch/runtime/batching/job_batch_size.hpp"
#include "conch/runtime/logging/log.hpp"

namespace conch::runtime::batching {

namespace {

// The implicit states of one sequence: what its next request is fed. Written
// by the tap on the backend's thread, read by the queue's owner.
class state_store {
 public:
  void reset(const std::vector<sequence_state_spec>& specs) {
    std::lock_guard<std::mutex> guard{mu_};
    current_.clear();
    // A copy each: a backend may write into its inputs.
    for (const auto& s : specs)
      current_.push_back(
        tensor{s.input_name, s.type, s.shape, buffer::copy_of(s.initial.data(), s.initial.size())});
  }

  bool empty() const {
    std::lock_guard<std::mutex> guard{mu_};
    return current_.empty();
  }

  std::vector<tensor> snapshot() const {
    std::lock_guard<std::mutex> guard{mu_};
    return current_;
  }

  void update(size_t index, tensor t) {
    std::lock_guard<std::mutex> guard{mu_};
    if (index < current_.size()) {
      t.name = current_[index].name;
      current_[index] = std::move(t);
    }
  }

 private:
  mutable std::mutex mu_;
  std::vector<tensor> current_;
};

// What a job of a sequence carries while it runs: where its states go, which
// of its outputs the client did not ask for, and what it was before the
// queue added its inputs (to put it back).
class sequence_tap final : public response_tap {
 public:
  std::shared_ptr<const std::vector<sequence_state_spec>> states;
  std::shared_ptr<state_store> store;
  std::vector<std::string> strip;
  size_t original_inputs = 0;
  std::vector<std::string> original_requested;
  std::weak_ptr<sequence_queue::sequence> seq;

  void on_response(inference_response& r) override {
    if (!r.error.is_ok() || r.outputs.empty() || !states)
      return;
    for (size_t i = 0; i < states->size(); ++i) {
      const auto& name = (*states)[i].output_name;
      auto it = std::find_if(r.outputs.begin(), r.outputs.end(),
                             [&](const tensor& t) { return t.name == name; });
      if (it == r.outputs.end())
        continue;
      if (store)
        store->update(i, *it);
    }
    if (strip.empty())
      return;
    r.outputs.erase(std::remove_if(r.outputs.begin(), r.outputs.end(),
                                   [&](const tensor& t) {
                                     return std::find(strip.begin(), strip.end(), t.name)
                                            != strip.end();
                                   }),
                    r.outputs.end());
  }
};

bool has_flag(const inference_request& r, request_flags f) noexcept { return (r.flags & f) != 0; }

// A zeroed tensor of t's name, type and shape (empty strings for BYTES).
tensor zeroed_like(const tensor& t) {
  auto count = std::max<int64_t>(0, element_count(t.shape));
  size_t size = static_cast<size_t>(count)
                * (t.type == data_type::bytes ? sizeof(uint32_t) : element_size(t.type));
  auto data = buffer::allocate(size);
  if (size != 0)
    std::memset(data.data(), 0, size);
  return tensor{t.name, t.type, t.shape, std::move(data)};
}

// Whether two requests could share a batch: the same inputs by name, type
// and shape.
bool same_inputs(const std::vector<tensor>& a, const std::vector<tensor>& b) {
  if (a.size() != b.size())
    return false;
  for (const auto& t : a) {
    auto it = std::find_if(b.begin(), b.end(), [&](const tensor& u) { return u.name == t.name; });
    if (it == b.end() || it->type != t.type || it->shape != t.shape)
      return false;
  }
  return true;
}

} // namespace

struct sequence_queue::sequence {
  struct entry {
    job_ptr job;
    uint64_t enqueued_ns = 0;
    /// When its queue timeout passes (in the backlog only); 0 for none.
    uint64_t deadline_ns = 0;
  };

  correlation_id id;
  std::deque<entry> jobs;
  size_t slot = no_slot;
  bool in_flight = false;
  /// Ended while a request of it runs: its slot is freed when that returns.
  bool release_when_done = false;
  uint64_t last_ns = 0;
  std::shared_ptr<state_store> state;
};

sequence_queue::sequence_queue(sequence_config config)
  : config_(std::move(config)),
    // Triton's oldest batcher keeps max_candidate_sequences per instance.
    slots_(config_.instances
           * (config_.oldest ? config_.candidates : config_.slots_per_instance)),
    running_(config_.instances),
    up_(config_.instances, true),
    states_(std::make_shared<const std::vector<sequence_state_spec>>(config_.states)) {}

sequence_queue::~sequence_queue() = default;

size_t sequence_queue::active() const noexcept {
  return static_cast<size_t>(
    std::count_if(slots_.begin(), slots_.end(), [](const auto& s) { return s != nullptr; }));
}

status sequence_queue::timeout_error() const {
  return unavailable("timeout of the corresponding sequence has been expired");
}

// -- slots ------------------------------------------------------------------------

void sequence_queue::bind_free_slot(const sequence_ptr& seq) {
  // Direct: slot 0 of every instance first, then slot 1, ..., so that all
  // instances' batches grow alike and stay as small as they can.
  if (config_.oldest) {
    for (size_t g = 0; g < slots_.size(); ++g)
      if (!slots_[g]) {
        slots_[g] = seq;
        seq->slot = g;
        return;
      }
  } else {
    const auto per = config_.slots_per_instance;
    for (size_t s = 0; s < per; ++s)
      for (size_t i = 0; i < config_.instances; ++i) {
        auto g = i * per + s;
        if (up_[i] && !slots_[g]) {
          slots_[g] = seq;
          seq->slot = g;
          return;
        }
      }
  }
  seq->slot = no_slot;
  backlog_.push_back(seq);
}

void sequence_queue::release_slot(size_t slot) {
  if (slot >= slots_.size() || !slots_[slot])
    return;
  slots_[slot]->slot = no_slot;
  slots_[slot] = nullptr;
  // A slot of an instance that is down takes nobody until it is up again.
  if (backlog_.empty() || (!config_.oldest && !up_[slot / config_.slots_per_instance]))
    return;
  auto seq = std::move(backlog_.front());
  backlog_.pop_front();
  slots_[slot] = seq;
  seq->slot = slot;
}

void sequence_queue::unmap(const sequence_ptr& seq) {
  auto it = by_id_.find(seq->id);
  if (it != by_id_.end() && it->second == seq)
    by_id_.erase(it);
}

void sequence_queue::end_sequence(const sequence_ptr& seq, std::vector<job_ptr>& out) {
  for (auto& e : seq->jobs)
    out.push_back(std::move(e.job));
  size_ -= seq->jobs.size();
  seq->jobs.clear();
  unmap(seq);
  if (seq->slot == no_slot) {
    backlog_.erase(std::remove(backlog_.begin(), backlog_.end(), seq), backlog_.end());
  } else if (seq->in_flight) {
    seq->release_when_done = true;
  } else {
    release_slot(seq->slot);
  }
}

// -- queueing -----------------------------------------------------------------------

status sequence_queue::enqueue(job_ptr job, uint64_t now_ns) {
  const auto& request = job->request();
  const auto& model = config_.model;
  if (config_.max_batch_size > 0 && job_batch_size(*job, config_.max_batch_size) > 1)
    return invalid_argument("inference request to model '" + model
                            + "' must specify batch-size 1 due to requirements of sequence "
                              "batcher");
  if (config_.iterative) {
    // A sequence of its own, started by its first run; it ends when its
    // backend answers it rather than rescheduling it (batch_done). Without
    // an id of the client's it gets one, for the CORRID control.
    auto& r = job->request();
    r.flags = (r.flags | request_sequence_start) & ~uint32_t{request_sequence_end};
    if (!names_sequence(r.correlation_id)) {
      ++iterative_ids_;
      correlation_id generated{(uint64_t{1} << 62) + iterative_ids_};
      if (!config_.check_id(generated).is_ok())
        generated = "conch-iterative-" + std::to_string(iterative_ids_);
      r.correlation_id = std::move(generated);
    }
  }
  const auto& id = request.correlation_id;
  if (!names_sequence(id))
    return invalid_argument("inference request to model '" + model
                            + "' must specify a non-zero or non-empty correlation ID");
  CONCH_RUNTIME_RETURN_IF_ERROR(config_.check_id(id));
  bool start = has_flag(request, request_sequence_start);
  bool end = has_flag(request, request_sequence_end);
  sequence_ptr seq;
  auto it = config_.iterative ? by_id_.end() : by_id_.find(id);
  if (it == by_id_.end()) {
    if (!start)
      return invalid_argument("inference request for sequence " + correlation_id_text(id)
                              + " to model '" + model
                              + "' must specify the START flag on the first request of the "
                                "sequence");
    seq = std::make_shared<sequence>();
    seq->id = id;
    if (!config_.states.empty())
      seq->state = std::make_shared<state_store>();
    bind_free_slot(seq);
    if (!end && !config_.iterative)
      by_id_.emplace(id, seq);
  } else {
    seq = it->second;
    if (start)
      CONCH_LOG_WARN << "sequence " << correlation_id_text(id) << " for model '" << model
                     << "' has a conflict. The previous sequence did not end before this "
                        "sequence start. Previous sequence will be terminated early.";
    if (end)
      by_id_.erase(it);
  }
  if (job->times().queue_start == 0)
    job->times().queue_start = now_ns;
  uint64_t deadline = 0;
  if (request.timeout_us != 0)
    deadline = now_ns + std::min<uint64_t>(request.timeout_us,
                                           std::numeric_limits<uint64_t>::max() / 4000) * 1000;
  seq->jobs.push_back({std::move(job), now_ns, deadline});
  seq->last_ns = now_ns;
  ++size_;
  return status::ok();
}

status sequence_queue::return_to_front(job_ptr job, uint64_t now_ns) {
  auto* tap = dynamic_cast<sequence_tap*>(job->tap().get());
  auto seq = tap ? tap->seq.lock() : nullptr;
  if (!seq)
    return internal_error("the request's sequence ended before it could run again");
  auto& request = job->request();
  request.inputs.resize(tap->original_inputs);
  request.requested_outputs = tap->original_requested;
  job->set_tap(nullptr);
  seq->in_flight = false;
  for (auto& batch : running_)
    batch.erase(std::remove(batch.begin(), batch.end(), seq), batch.end());
  // An END request gave its slot up when it was batched: it needs one again.
  if (seq->slot == no_slot
      && std::find(backlog_.begin(), backlog_.end(), seq) == backlog_.end())
    bind_free_slot(seq);
  seq->jobs.push_front({std::move(job), now_ns, 0});
  ++size_;
  return status::ok();
}

status sequence_queue::reschedule(job_ptr job, uint64_t now_ns) {
  if (!config_.iterative)
    return job_queue::reschedule(std::move(job), now_ns);
  // Its next run continues the sequence: no START control this time.
  job->request().flags &= ~request_sequence_start;
  return return_to_front(std::move(job), now_ns);
}

// -- batches --------------------------------------------------------------------------

void sequence_queue::prepare(const job_ptr& job, const sequence_ptr& owner) {
  auto& seq = *owner;
  auto& request = job->request();
  auto tap = std::make_shared<sequence_tap>();
  tap->seq = owner;
  tap->original_inputs = request.inputs.size();
  tap->original_requested = request.requested_outputs;
  bool start = has_flag(request, request_sequence_start);
  bool end = has_flag(request, request_sequence_end);
  for (auto& t : config_.control_tensors(start, end, true, request.correlation_id))
    request.inputs.push_back(std::move(t));
  if (seq.state) {
    // A START (also one that cut the sequence before it short) begins afresh.
    if (start || seq.state->empty())
      seq.state->reset(config_.states);
    for (auto& t : seq.state->snapshot())
      request.inputs.push_back(std::move(t));
    // The model must produce its states; a client sees one only where the
    // configuration lists it as an output and the client asked for it.
    auto selected = request.requested_outputs;
    if (request.requested_outputs.empty())
      request.requested_outputs = config_.outputs;
    for (const auto& s : config_.states) {
      auto& wanted = request.requested_outputs;
      if (std::find(wanted.begin(), wanted.end(), s.output_name) == wanted.end())
        wanted.push_back(s.output_name);
      bool asked = selected.empty()
                   || std::find(selected.begin(), selected.end(), s.output_name)
                        != selected.end();
      if (!s.returned || !asked)
        tap->strip.push_back(s.output_name);
    }
    tap->states = states_;
    tap->store = seq.state;
  }
  job->set_tap(std::move(tap));
}

job_ptr sequence_queue::padding_like(const inference_job& representative) const {
  inference_request r;
  const auto& rep = representative.request();
  r.model_name = rep.model_name;
  r.model_version = rep.model_version;
  r.requested_outputs = rep.requested_outputs;
  for (const auto& t : rep.inputs)
    r.inputs.push_back(zeroed_like(t));
  for (auto& t : config_.control_tensors(false, false, false, correlation_id{}))
    r.inputs.push_back(std::move(t));
  // A padding row gets a throwaway state, so no sequence's state changes.
  for (const auto& s : config_.states)
    r.inputs.push_back(
      tensor{s.input_name, s.type, s.shape, buffer::copy_of(s.initial.data(), s.initial.size())});
  auto job = std::make_shared<inference_job>(std::move(r), nullptr);
  job->resolve(representative.resolved_version());
  return job;
}

job_ptr sequence_queue::take_front(const sequence_ptr& seq, size_t instance) {
  auto job = std::move(seq->jobs.front().job);
  seq->jobs.pop_front();
  --size_;
  prepare(job, seq);
  seq->in_flight = true;
  running_[instance].push_back(seq);
  // The END is batched: the slot may take the next sequence's requests.
  if (has_flag(job->request(), request_sequence_end))
    release_slot(seq->slot);
  return job;
}

sequence_queue::decision sequence_queue::next(uint64_t now_ns, size_t instance) {
  if (size_ == 0)
    return {};
  return config_.oldest ? next_oldest(now_ns, instance) : next_direct(now_ns, instance);
}

sequence_queue::decision sequence_queue::next_direct(uint64_t now_ns, size_t instance) {
  const auto per = config_.slots_per_instance;
  const auto base = instance * per;
  if (base + per > slots_.size())
    return {};
  std::vector<sequence_ptr> ready(per);
  size_t count = 0;
  uint64_t oldest = std::numeric_limits<uint64_t>::max();
  const inference_job* representative = nullptr;
  for (size_t s = 0; s < per; ++s) {
    const auto& seq = slots_[base + s];
    if (!seq || seq->in_flight || seq->jobs.empty())
      continue;
    const auto& front = *seq->jobs.front().job;
    // A request whose inputs differ from the first one's waits for a later
    // batch; its slot gets a padding row in this one.
    if (representative && !same_inputs(front.request().inputs, representative->request().inputs))
      continue;
    if (!representative)
      representative = &front;
    ready[s] = seq;
    ++count;
    oldest = std::min(oldest, seq->jobs.front().enqueued_ns);
  }
  if (count == 0)
    return {};
  decision d;
  if (config_.max_queue_delay_ns > 0 && config_.minimum_slot_utilization > 0
      && static_cast<double>(count) / static_cast<double>(per) < config_.minimum_slot_utilization
      && now_ns < oldest + config_.max_queue_delay_ns) {
    d.wake_at_ns = oldest + config_.max_queue_delay_ns;
    return d;
  }
  size_t top = 0;
  for (size_t s = 0; s < per; ++s)
    if (ready[s])
      top = s;
  // Padding is made from the representative before its inputs grow.
  std::vector<job_ptr> padding;
  for (size_t s = 0; s <= top; ++s)
    if (!ready[s])
      padding.push_back(padding_like(*representative));
  for (size_t s = 0; s <= top; ++s) {
    if (!ready[s]) {
      d.jobs.push_back(std::move(padding.back()));
      padding.pop_back();
      ++d.padding;
      continue;
    }
    d.jobs.push_back(take_front(ready[s], instance));
  }
  return d;
}

sequence_queue::decision sequence_queue::next_oldest(uint64_t now_ns, size_t instance) {
  if (instance >= running_.size())
    return {};
  std::vector<sequence_ptr> candidates;
  for (const auto& seq : slots_)
    if (seq && !seq->in_flight && !seq->jobs.empty())
      candidates.push_back(seq);
  if (candidates.empty())
    return {};
  std::stable_sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
    return a->jobs.front().enqueued_ns < b->jobs.front().enqueued_ns;
  });
  const auto max_items = static_cast<size_t>(std::max(1, config_.max_batch_size));
  auto n = std::min(candidates.size(), max_items);
  const auto& preferred = config_.preferred;
  bool full = n == max_items || std::find(preferred.begin(), preferred.end(), n) != preferred.end();
  auto oldest = candidates.front()->jobs.front().enqueued_ns;
  decision d;
  if (!full && config_.max_queue_delay_ns > 0 && now_ns < oldest + config_.max_queue_delay_ns) {
    d.wake_at_ns = oldest + config_.max_queue_delay_ns;
    return d;
  }
  for (size_t k = 0; k < n; ++k)
    d.jobs.push_back(take_front(candidates[k], instance));
  return d;
}

void sequence_queue::batch_done(size_t instance, uint64_t now_ns) {
  if (instance >= running_.size())
    return;
  for (auto& seq : running_[instance]) {
    seq->in_flight = false;
    seq->last_ns = std::max(seq->last_ns, now_ns);
    // An iterative request still here was answered, not rescheduled (that
    // took it out of running_): its sequence ends.
    if (seq->release_when_done || (config_.iterative && seq->jobs.empty())) {
      seq->release_when_done = false;
      release_slot(seq->slot);
    }
  }
  running_[instance].clear();
  // A sequence whose request was running when the drain began (its client
  // may have heard the answer already) gives its slot up now.
  if (draining_)
    draining();
}

std::vector<job_ptr> sequence_queue::instance_down(size_t instance) {
  std::vector<job_ptr> out;
  if (config_.oldest || instance >= up_.size())
    return out;
  up_[instance] = false;
  // Its sequences lived on it (their slots are its batch rows): they end.
  const auto per = config_.slots_per_instance;
  for (size_t s = 0; s < per; ++s) {
    auto seq = slots_[instance * per + s];
    if (!seq)
      continue;
    for (auto& e : seq->jobs)
      out.push_back(std::move(e.job));
    size_ -= seq->jobs.size();
    seq->jobs.clear();
    unmap(seq);
    seq->slot = no_slot;
    slots_[instance * per + s] = nullptr;
  }
  return out;
}

void sequence_queue::instance_up(size_t instance) {
  if (config_.oldest || instance >= up_.size() || up_[instance])
    return;
  up_[instance] = true;
  const auto per = config_.slots_per_instance;
  for (size_t s = 0; s < per && !backlog_.empty(); ++s) {
    auto g = instance * per + s;
    if (slots_[g])
      continue;
    auto seq = std::move(backlog_.front());
    backlog_.pop_front();
    slots_[g] = seq;
    seq->slot = g;
  }
}

void sequence_queue::draining() {
  draining_ = true;
  for (size_t g = 0; g < slots_.size(); ++g) {
    auto seq = slots_[g];
    if (seq && !seq->in_flight && seq->jobs.empty()) {
      unmap(seq);
      release_slot(g);
    }
  }
}

// -- time, cancellation, stop ------------------------------------------------------------

std::vector<job_ptr> sequence_queue::take_expired(uint64_t now_ns) {
  std::vector<job_ptr> out;
  for (size_t g = 0; g < slots_.size(); ++g) {
    auto seq = slots_[g];
    if (!seq || seq->in_flight || !seq->jobs.empty() || now_ns < seq->last_ns + config_.idle_ns)
      continue;
    CONCH_LOG_VERBOSE(1) << "sequence " << correlation_id_text(seq->id) << " of model '"
                      << config_.model << "': max sequence idle exceeded, its slot is freed";
    unmap(seq);
    release_slot(g);
  }
  std::vector<sequence_ptr> expired;
  for (const auto& seq : backlog_)
    for (const auto& e : seq->jobs)
      if (e.deadline_ns != 0 && e.deadline_ns <= now_ns) {
        expired.push_back(seq);
        break;
      }
  for (const auto& seq : expired)
    end_sequence(seq, out);
  return out;
}

std::vector<job_ptr> sequence_queue::take_cancelled() {
  std::vector<sequence_ptr> hit;
  auto check = [&](const sequence_ptr& seq) {
    if (seq && std::any_of(seq->jobs.begin(), seq->jobs.end(),
                           [](const auto& e) { return e.job->is_cancelled(); }))
      hit.push_back(seq);
  };
  for (const auto& seq : slots_)
    check(seq);
  for (const auto& seq : backlog_)
    check(seq);
  std::vector<job_ptr> out;
  for (const auto& seq : hit)
    end_sequence(seq, out);
  return out;
}

std::vector<job_ptr> sequence_queue::take_all() {
  std::vector<job_ptr> out;
  std::vector<sequence_ptr> all;
  for (const auto& seq : slots_)
    if (seq)
      all.push_back(seq);
  all.insert(all.end(), backlog_.begin(), backlog_.end());
  for (const auto& seq : all)
    end_sequence(seq, out);
  by_id_.clear();
  return out;
}

uint64_t sequence_queue::next_deadline() const noexcept {
  uint64_t out = 0;
  auto consider = [&](uint64_t t) {
    if (t != 0 && (out == 0 || t < out))
      out = t;
  };
  for (const auto& seq : slots_)
    if (seq && !seq->in_flight && seq->jobs.empty())
      consider(seq->last_ns + config_.idle_ns);
  for (const auto& seq : backlog_)
    for (const auto& e : seq->jobs)
      consider(e.deadline_ns);
  return out;
}

} // namespace conch::runtime::batching
