#include "conch/runtime/inference_job.hpp"

#include "conch/runtime/clock.hpp"
#include "conch/runtime/tensor_reshape.hpp"

namespace conch::runtime {

inference_job::inference_job(inference_request request, response_callback callback)
  : request_(std::move(request)), callback_(std::move(callback)) {
  times_.arrival = now_ns();
}

inference_job::~inference_job() {
  if (!completed()) {
    inference_response r;
    r.error = unavailable("the request was dropped before it completed");
    failure_ = failure_kind::other;
    r.final = true;
    deliver_locked(std::move(r)); // nobody else holds the job any more
  }
}

namespace {

constexpr uint8_t listener_storing = 1;
constexpr uint8_t listener_set = 2;

// Stores a listener once: the first of any number of concurrent callers
// claims `slot`, writes it and only then marks it set; the others change
// nothing (two owners may name theirs at once: a lane and its scheduler).
void store_listener(std::shared_ptr<cancel_listener>& slot, std::atomic<uint8_t>& set,
                    std::shared_ptr<cancel_listener> l, const std::atomic<bool>& cancelled,
                    const inference_job& job) noexcept {
  uint8_t unset = 0;
  if (!set.compare_exchange_strong(unset, listener_storing, std::memory_order_acq_rel))
    return;
  slot = std::move(l);
  set.store(listener_set, std::memory_order_seq_cst);
  if (cancelled.load(std::memory_order_seq_cst) && !job.completed())
    slot->on_cancel();
}

} // namespace

// cancel() and the setters of the listeners each store one flag and then
// read the other's; sequential consistency guarantees that at least one of
// them sees both and tells the listener (telling it twice is harmless).
void inference_job::cancel() noexcept {
  if (cancelled_.exchange(true, std::memory_order_seq_cst))
    return;
  if (listener_set_.load(std::memory_order_seq_cst) == listener_set && !completed())
    listener_->on_cancel();
  if (work_listener_set_.load(std::memory_order_seq_cst) == listener_set && !completed())
    work_listener_->on_cancel();
}

void inference_job::set_cancel_listener(std::shared_ptr<cancel_listener> l) noexcept {
  store_listener(listener_, listener_set_, std::move(l), cancelled_, *this);
}

void inference_job::set_work_listener(std::shared_ptr<cancel_listener> l) noexcept {
  store_listener(work_listener_, work_listener_set_, std::move(l), cancelled_, *this);
}

bool inference_job::set_completion_listener(std::shared_ptr<completion_listener> l) {
  // Under the answering lock, which the final response holds while it sets
  // completed_: either this sees it completed, or the answer sees `l`.
  std::lock_guard<std::mutex> guard{answer_mu_};
  if (completed())
    return false;
  completion_ = std::move(l);
  return true;
}

void inference_job::respond(inference_response&& r) {
  answer(std::move(r), nullptr);
}

void inference_job::fail(status error, failure_kind kind) {
  if (error.code() == errc::cancelled)
    kind = failure_kind::cancelled;
  inference_response r;
  r.error = std::move(error);
  r.final = true;
  answer(std::move(r), &kind);
}

void inference_job::answer(inference_response&& r, const failure_kind* kind) {
  std::unique_lock<std::mutex> lock{answer_mu_};
  if (completed() || routed_final_.load(std::memory_order_relaxed))
    return;
  if (kind != nullptr)
    failure_ = *kind;
  if (tap_)
    tap_->on_response(r);
  if (!r.error.is_ok())
    r.final = true;
  // The final response stamps the end of execution here, on the thread that
  // produced it, before it may travel to another thread through the router.
  if (r.final && times_.exec_start != 0 && times_.exec_end == 0)
    times_.exec_end = now_ns();
  if (router_) {
    routed_final_.store(r.final, std::memory_order_release);
    auto router = router_;
    lock.unlock();
    router->route(shared_from_this(), std::move(r));
    return;
  }
  deliver_locked(std::move(r));
}

void inference_job::abandon(status error) noexcept {
  cancel();
  std::lock_guard<std::mutex> lock{answer_mu_};
  if (completed())
    return;
  inference_response r;
  r.error = std::move(error);
  r.final = true;
  failure_ = failure_kind::other;
  try {
    deliver_locked(std::move(r));
  } catch (...) {
    // Out of memory while filling in the response: nothing more can be
    // done from here.
  }
}

void inference_job::deliver(inference_response&& r) {
  std::lock_guard<std::mutex> lock{answer_mu_};
  deliver_locked(std::move(r));
}

void inference_job::deliver_locked(inference_response&& r) {
  if (reshapes_ && r.error.is_ok() && !r.outputs.empty()) {
    if (auto st = reshapes_->to_client(r.outputs, request_.model_name); !st) {
      r.outputs.clear();
      r.error = std::move(st);
    }
  }
  if (!r.error.is_ok())
    r.final = true;
  if (r.final && completed_.exchange(true, std::memory_order_acq_rel))
    return;
  if (!r.final && completed())
    return;
  if (r.model_name.empty())
    r.model_name = request_.model_name;
  if (r.model_version == 0 && version_ > 0)
    r.model_version = version_;
  if (r.id.empty())
    r.id = request_.id;
  if (labels_ && !r.outputs.empty() && !r.labels)
    r.labels = labels_;
  ++responses_;
  auto now = now_ns();
  auto outcome = r.error;
  if (model_)
    model_->on_response(*this, r, now);
  bool final = r.final;
  // Statistics count the request before the client hears of it, so a client
  // that reads them right after its last response sees its own request.
  if (final && model_)
    model_->on_complete(*this, outcome, now);
  if (final && request_.trace) {
    request_.trace->record_job(request_, times_, version_, r, now);
    if (hand_trace_back_)
      r.trace = request_.trace;
  }
  if (callback_) {
    // The callback is the client's code: whatever it throws stays with it.
    try {
      callback_(std::move(r));
    } catch (...) {
    }
  }
  // What the callback left of the trace in the response goes here: the
  // caller's response object may outlive this call.
  r.trace.reset();
  if (final) {
    if (frontend_)
      frontend_->on_complete(*this, outcome, now);
    callback_ = nullptr;
    if (auto listener = std::move(completion_))
      listener->on_completed();
  }
}

} // namespace conch::runtime
