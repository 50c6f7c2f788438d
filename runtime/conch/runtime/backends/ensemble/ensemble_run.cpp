#include "conch/runtime/backends/ensemble/ensemble_run.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "conch/runtime/backends/common/job_output.hpp"

namespace conch::runtime::backends::ensemble {

ensemble_run::ensemble_run(std::shared_ptr<const ensemble_plan> plan, job_ptr job)
  : plan_(std::move(plan)), job_(std::move(job)) {}

void ensemble_run::start(std::shared_ptr<const ensemble_plan> plan, job_ptr job) {
  auto run = std::make_shared<ensemble_run>(std::move(plan), job);
  run->begin();
  // Named after begin(), so a cancel always finds the run begun; the setter
  // tells it at once of a cancel that came first. The job holds the run
  // until it is destroyed; the run lets go of the job with its answer.
  job->set_work_listener(run);
}

void ensemble_run::begin() {
  const auto& g = plan_->graph;
  std::vector<job_ptr> steps;
  {
    lock_type lock{mu_};
    common::mark_input_end(*job_);
    values_.resize(g.tensors.size());
    const auto& request = job_->request();
    for (auto t : g.inputs) {
      values_[t].set = true;
      if (const tensor* in = request.input(g.tensors[t]))
        values_[t].value = *in;
    }
    if (job_->is_cancelled())
      (void) stop(cancelled("request cancelled"), failure_kind::cancelled);
    else
      steps = ready_steps(g.inputs);
    maybe_finish();
    flush(lock);
  }
  send(steps);
}

std::vector<job_ptr> ensemble_run::ready_steps(const std::vector<size_t>& written) {
  const auto& g = plan_->graph;
  std::vector<size_t> ready;
  for (auto t : written)
    for (auto s : g.consumers[t]) {
      const auto& in = g.steps[s].inputs;
      bool all = std::all_of(in.begin(), in.end(),
                             [this](const auto& p) { return values_[p.second].set; });
      if (all && std::find(ready.begin(), ready.end(), s) == ready.end())
        ready.push_back(s);
    }
  std::sort(ready.begin(), ready.end());
  std::vector<job_ptr> out;
  out.reserve(ready.size());
  // Forget the steps that are gone, so the list stays about as long as the
  // steps running. (Locking one here could make this the last owner of an
  // unanswered job, whose destructor would answer it under mu_.)
  running_.erase(std::remove_if(running_.begin(), running_.end(),
                                [](const auto& w) { return w.expired(); }),
                 running_.end());
  for (auto s : ready) {
    auto job = step_request(s);
    running_.push_back(job);
    out.push_back(std::move(job));
    ++in_flight_;
  }
  return out;
}

job_ptr ensemble_run::step_request(size_t s) {
  const auto& step = plan_->graph.steps[s];
  const auto& parent = job_->request();
  inference_request r;
  r.model_name = step.model_name;
  r.model_version = step.model_version;
  r.id = parent.id;
  r.flags = parent.flags;
  r.correlation_id = parent.correlation_id;
  r.priority = parent.priority;
  r.timeout_us = parent.timeout_us;
  r.parameters = parent.parameters;
  // A traced ensemble traces each step, as a child of its own trace.
  if (parent.trace)
    r.trace = parent.trace->spawn_child(step.model_name);
  r.inputs.reserve(step.inputs.size());
  for (const auto& [name, t] : step.inputs)
    if (const auto& v = values_[t].value) {
      r.inputs.push_back(*v);
      r.inputs.back().name = name;
    }
  r.requested_outputs.reserve(step.outputs.size());
  for (const auto& [name, t] : step.outputs)
    r.requested_outputs.push_back(name);
  // The callback holds the run: a step's answer always comes, even from a
  // step whose job is dropped unanswered (its destructor answers). It reads
  // the step's times through a weak handle (the job holds the callback).
  auto handle = std::make_shared<std::weak_ptr<inference_job>>();
  auto job = std::make_shared<inference_job>(
    std::move(r), [self = shared_from_this(), s, handle](inference_response&& resp) {
      self->on_step_response(s, std::move(resp), handle->lock());
    });
  *handle = job;
  return job;
}

void ensemble_run::send(std::vector<job_ptr>& steps) {
  for (auto& step : steps)
    plan_->models->submit(std::move(step));
  steps.clear();
}

void ensemble_run::add_phases(const job_times& t) {
  if (t.exec_start == 0)
    return; // answered without running: refused, or from the response cache
  // A step that is an ensemble itself passes its own sums on.
  auto p = compute_phases(t, t.exec_end);
  phases_.input += p.input;
  phases_.infer += p.infer;
  phases_.output += p.output;
}

void ensemble_run::on_step_response(size_t s, inference_response&& r, const job_ptr& step_job) {
  const auto& g = plan_->graph;
  const auto& step = g.steps[s];
  std::vector<job_ptr> next;
  std::vector<job_ptr> to_cancel;
  {
    lock_type lock{mu_};
    if (r.final && in_flight_ > 0)
      --in_flight_;
    if (r.final && step_job)
      add_phases(step_job->times());
    if (!r.error) {
      to_cancel = stop(r.error.with_prefix("in ensemble '" + plan_->name + "', "),
                       r.error.code() == errc::cancelled ? failure_kind::cancelled
                                                         : failure_kind::backend);
    } else if (!stopped_) {
      std::vector<size_t> written;
      for (const auto& [name, t] : step.outputs) {
        auto out = std::find_if(r.outputs.begin(), r.outputs.end(),
                                [&name = name](const tensor& o) { return o.name == name; });
        if (out == r.outputs.end())
          continue;
        values_[t].set = true;
        values_[t].value = std::move(*out);
        values_[t].value->name = g.tensors[t];
        written.push_back(t);
      }
      // A decoupled ensemble answers whenever a response completes the
      // outputs the client asked for, with all of them, as Triton does.
      if (plan_->decoupled && writes_wanted_output(written) && wanted_outputs_set())
        outbox_.push_back({outputs_of(), false, status::ok(), failure_kind::backend});
      if (!stopped_)
        next = ready_steps(written);
    }
    maybe_finish();
    flush(lock);
  }
  for (auto& j : to_cancel)
    j->cancel();
  send(next);
}

std::vector<job_ptr> ensemble_run::stop(status error, failure_kind kind) {
  std::vector<job_ptr> running;
  if (stopped_)
    return running;
  stopped_ = true;
  error_ = std::move(error);
  error_kind_ = kind;
  for (auto& w : running_)
    if (auto j = w.lock(); j && !j->completed())
      running.push_back(std::move(j));
  running_.clear();
  return running;
}

void ensemble_run::on_cancel() noexcept {
  std::vector<job_ptr> running;
  {
    lock_type lock{mu_};
    if (finished_)
      return;
    running = stop(cancelled("request cancelled"), failure_kind::cancelled);
    maybe_finish();
    flush(lock);
  }
  for (auto& j : running)
    j->cancel();
}

bool ensemble_run::writes_wanted_output(const std::vector<size_t>& written) const {
  const auto& g = plan_->graph;
  const auto& request = job_->request();
  return std::any_of(written.begin(), written.end(), [&](size_t t) {
    return std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end()
           && request.wants_output(g.tensors[t]);
  });
}

bool ensemble_run::wanted_outputs_set() const {
  const auto& g = plan_->graph;
  const auto& request = job_->request();
  return std::all_of(g.outputs.begin(), g.outputs.end(), [&](size_t t) {
    return values_[t].value.has_value() || !request.wants_output(g.tensors[t]);
  });
}

std::vector<tensor> ensemble_run::outputs_of() const {
  const auto& g = plan_->graph;
  const auto& request = job_->request();
  std::vector<tensor> out;
  for (auto t : g.outputs)
    if (values_[t].value && request.wants_output(g.tensors[t]))
      out.push_back(*values_[t].value);
  return out;
}

namespace {

// `outputs` in memory from the request's allocator, when it brings one: the
// client chose where its outputs live. Not under a lock: the allocator is
// the client's code.
result<std::vector<tensor>> in_client_memory(const inference_request& request,
                                             std::vector<tensor> outputs) {
  if (!request.allocator)
    return outputs;
  for (auto& out : outputs) {
    if (!out.data.host_accessible())
      return unsupported("output '" + out.name + "' is in "
                         + std::string{memory_type_name(out.data.type())}
                         + " memory; an ensemble copies host memory only");
    auto size = out.data.size();
    auto memory = request.allocator->allocate(out.name, size, request.preferred_output_memory,
                                              request.preferred_output_device);
    if (!memory)
      return memory.error().with_prefix("output '" + out.name + "': ");
    if (memory->size() < size || !memory->host_accessible())
      return unsupported("output '" + out.name
                         + "': the allocator returned memory an ensemble cannot write");
    if (size > 0)
      std::memcpy(memory->data(), out.data.data(), size);
    out.data = memory->slice(0, size);
  }
  return outputs;
}

} // namespace

void ensemble_run::maybe_finish() {
  if (finished_ || in_flight_ > 0)
    return;
  finished_ = true;
  if (stopped_) {
    outbox_.push_back({{}, true, error_, error_kind_});
    return;
  }
  if (plan_->decoupled) {
    outbox_.push_back({{}, true, status::ok(), failure_kind::backend});
    return;
  }
  if (!wanted_outputs_set()) {
    outbox_.push_back({{},
                       true,
                       invalid_argument("in ensemble '" + plan_->name
                                        + "', unexpected deadlock, at least one output is not "
                                          "set while no more ensemble steps can be made"),
                       failure_kind::backend});
    return;
  }
  outbox_.push_back({outputs_of(), true, status::ok(), failure_kind::backend});
}

void ensemble_run::flush(lock_type& lock) {
  if (delivering_)
    return; // the thread delivering takes these too, in order
  delivering_ = true;
  while (!outbox_.empty()) {
    auto a = std::move(outbox_.front());
    outbox_.pop_front();
    auto job = a.final ? std::move(job_) : job_;
    // The ensemble's compute phases are its steps', summed (Triton's
    // statistics), counted when the final answer completes the request.
    if (a.final)
      job->times().summed = phases_;
    if (a.final)
      values_.clear(); // the tensors go with the answer
    lock.unlock();
    if (!!a.error && !a.outputs.empty()) {
      auto copied = in_client_memory(job->request(), std::move(a.outputs));
      if (copied)
        a.outputs = std::move(*copied);
      else
        a = {{}, true, copied.error(), failure_kind::backend};
    }
    if (!a.error)
      job->fail(std::move(a.error), a.kind);
    else
      common::respond_with(*job, std::move(a.outputs), a.final);
    job.reset(); // before the lock: the last owner of the job may be here
    lock.lock();
  }
  delivering_ = false;
}

} // namespace conch::runtime::backends::ensemble
