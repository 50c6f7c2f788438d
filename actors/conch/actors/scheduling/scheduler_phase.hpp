#pragma once

namespace conch::actors {

/// Where a model_scheduler is in its life, as two steps that overlap: its
/// load (not started, loading, ready, failed) and its stop (serving,
/// draining, aborted). A drain may begin while the model still loads and
/// then waits for the load; an abort ends a drain early. Only a scheduler
/// that is ready and not stopping takes requests or lends its instances.
class scheduler_phase {
 public:
  enum class load_step { unloaded, loading, ready, failed };
  enum class stop_step { serving, draining, aborted };

  load_step load() const noexcept { return load_; }
  stop_step stop() const noexcept { return stop_; }

  bool loading() const noexcept { return load_ == load_step::loading; }
  /// Takes requests: loaded, and no drain or abort has begun.
  bool serving() const noexcept {
    return load_ == load_step::ready && stop_ == stop_step::serving;
  }
  /// A drain or an abort has begun.
  bool stopping() const noexcept { return stop_ != stop_step::serving; }
  bool aborted() const noexcept { return stop_ == stop_step::aborted; }

  /// Starts the load; false when one was started before (a scheduler loads
  /// once).
  bool begin_load() noexcept {
    if (load_ != load_step::unloaded)
      return false;
    load_ = load_step::loading;
    return true;
  }
  void load_succeeded() noexcept { load_ = load_step::ready; }
  void load_failed() noexcept { load_ = load_step::failed; }

  /// Begins a drain; an abort stays an abort.
  void drain() noexcept {
    if (stop_ == stop_step::serving)
      stop_ = stop_step::draining;
  }
  void abort() noexcept { stop_ = stop_step::aborted; }

 private:
  load_step load_ = load_step::unloaded;
  stop_step stop_ = stop_step::serving;
};

} // namespace conch::actors
