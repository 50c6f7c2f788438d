#include "conch/actors/scheduling/model_loader.hpp"

#include <utility>

namespace conch::actors {

model_loader::model_loader(std::string what) : what_(std::move(what)) {
}

model_loader::~model_loader() = default;

void model_loader::load_on_thread(std::function<void()> load) {
  loaded_on_thread_ = true;
  loader_ = std::make_unique<services::worker_thread>(what_ + " loader");
  loader_->post(std::move(load));
}

void model_loader::loaded() {
  if (!loader_)
    return;
  // Its one task has returned: the thread ends by itself.
  loader_->close();
  loader_.reset();
}

bool model_loader::finalize(model_ptr& model, std::function<void()> done) {
  if (finalizer_)
    return true;
  if (!finalizes_on_thread(model)) {
    model.reset();
    return false;
  }
  finalizer_ = std::make_unique<services::worker_thread>(finalizer_name());
  finalizer_->post([m = std::move(model)]() mutable { m.reset(); });
  finalizer_->close(std::move(done));
  return true;
}

void model_loader::finalized() {
  finalizer_.reset();
}

void model_loader::release(model_ptr& model) {
  if (loader_)
    loader_->abandon();
  loader_.reset();
  if (finalizer_ && finalizer_->busy())
    finalizer_->abandon();
  finalizer_.reset();
  if (finalizes_on_thread(model)) {
    services::worker_thread finalizer{finalizer_name()};
    finalizer.post([m = std::move(model)]() mutable { m.reset(); });
    finalizer.close();
  }
  model.reset();
}

bool model_loader::finalizes_on_thread(const model_ptr& model) const {
  return model && loaded_on_thread_ && model->blocking();
}

std::string model_loader::finalizer_name() const {
  return what_ + " finalizer";
}

} // namespace conch::actors
