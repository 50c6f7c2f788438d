#pragma once

#include <functional>
#include <memory>
#include <string>

#include "conch/runtime/backends/backend.hpp"
#include "conch/services/worker_thread.hpp"

namespace conch::actors {

/// The threads a model_scheduler loads and finalizes its backend's model on,
/// so that model code which blocks (a Python initialize or finalize) never
/// runs on the actor system's threads. A model loaded on the loader thread
/// that is blocking is finalized on a thread too: at the end of a drain,
/// where the scheduler waits for it, or when the scheduler ends without one,
/// where it runs on unwaited for. One owner, the scheduler's actor.
class model_loader {
 public:
  using model_ptr = std::shared_ptr<runtime::backends::backend_model>;

  /// `what` names the version in logs and thread names ("model 'm' version 1").
  explicit model_loader(std::string what);
  /// A load that has not returned is given up on (its thread abandoned); a
  /// finalization runs to its end.
  ~model_loader();

  model_loader(const model_loader&) = delete;
  model_loader& operator=(const model_loader&) = delete;

  /// Runs `load` on a loader thread of its own; it posts its model back to
  /// the scheduler, which then calls loaded().
  void load_on_thread(std::function<void()> load);

  /// The load has returned: the loader thread ends by itself.
  void loaded();

  /// At the end of a drain: moves a model that must be finalized on a thread
  /// (blocking and loaded on one) onto a finalizer thread, which calls `done`
  /// once it returned, and answers true: the drain waits for `done`. Any
  /// other model is released here, and the answer is false. Also true while
  /// an earlier finalization has not returned.
  bool finalize(model_ptr& model, std::function<void()> done);

  /// The finalization finalize() started has returned.
  void finalized();

  /// Ending without a drain: gives up on a load or finalization that has not
  /// returned, and finalizes a blocking model loaded on a thread on one of its
  /// own, unwaited for. `model` is empty afterwards.
  void release(model_ptr& model);

 private:
  bool finalizes_on_thread(const model_ptr& model) const;
  std::string finalizer_name() const;

  std::string what_;
  std::unique_ptr<services::worker_thread> loader_;
  std::unique_ptr<services::worker_thread> finalizer_;
  /// The model was loaded on the loader thread.
  bool loaded_on_thread_ = false;
};

} // namespace conch::actors
