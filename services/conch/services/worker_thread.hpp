#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace conch::services {

/// A thread of Conch's own that runs blocking model code (loading a backend,
/// creating an instance, executing batches, finalizing) one task at a time,
/// in the order posted. An actor system never waits for it, unlike a
/// detached actor: when its owner gives up on it, a thread whose task has
/// not returned is abandoned (detached, logged and counted), and whatever
/// its tasks hold stays alive until they return. post() and busy() are
/// thread-safe; close(), abandon() and destruction belong to its one owner.
class worker_thread {
 public:
  /// Starts the thread; `what` names it in logs ("model 'm' version 1
  /// instance 'm_0'").
  explicit worker_thread(std::string what);

  /// Joins the thread when it has ended; after close(), lets it run what is
  /// queued and end by itself; otherwise abandon()s it.
  ~worker_thread();

  worker_thread(const worker_thread&) = delete;
  worker_thread& operator=(const worker_thread&) = delete;

  /// Queues `task`. False once closed or abandoned: the task is then
  /// destroyed on this thread.
  bool post(std::function<void()> task);

  /// Takes no more tasks: after the queued ones the thread calls `on_exit`
  /// (on itself, when nothing else of it is left to run) and ends.
  void close(std::function<void()> on_exit = {});

  /// Gives up on the thread now: a task that runs is left to return on its
  /// own, queued tasks are dropped (destroyed on the worker), and the thread
  /// ends by itself. Counted and logged as abandoned when a task was running
  /// or queued; an idle thread simply ends. Idempotent.
  void abandon();

  /// True while a task runs or tasks are queued.
  bool busy() const;

  /// What the thread runs, for logs.
  const std::string& what() const noexcept { return what_; }

 private:
  struct state;

  static void run(std::shared_ptr<state> s);

  std::string what_;
  std::shared_ptr<state> state_;
  std::thread thread_;
};

} // namespace conch::services
