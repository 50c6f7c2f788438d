#include "conch/transports/http/server.hpp"

#include <csignal>
#include <mutex>

#include "conch/transports/http/listener.hpp"
#include "conch/transports/http/loop.hpp"

namespace conch::transports::http {

namespace {

// libuv writes to sockets with write(2), which raises SIGPIPE when the peer
// has gone, and that signal's default action ends the process. Unless the
// program chose a disposition of its own, the transport ignores it, as
// Python and Node do: the write then fails with EPIPE and the connection
// closes.
void ignore_sigpipe_unless_handled() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction current {};
    if (::sigaction(SIGPIPE, nullptr, &current) == 0 && !(current.sa_flags & SA_SIGINFO)
        && current.sa_handler == SIG_DFL)
      std::signal(SIGPIPE, SIG_IGN);
  });
}

} // namespace

/// What the loop threads of one run share: how many are still running and
/// who waits for them. Outlives the server if a loop thread drops the last
/// reference to the server from inside a drained callback.
struct server::run_state {
  std::mutex mutex;
  int loops_left = 0;                               // guarded by mutex
  std::vector<std::function<void()>> on_drained;    // guarded by mutex
  bool stopping = false;                            // guarded by mutex
  bool failure_reported = false;                    // guarded by mutex

  void begin_stopping() {
    std::lock_guard<std::mutex> guard{mutex};
    stopping = true;
  }

  // True for the first loop that ends while nobody stopped the server.
  bool ended_unexpectedly() {
    std::lock_guard<std::mutex> guard{mutex};
    if (stopping || failure_reported)
      return false;
    failure_reported = true;
    return true;
  }

  // Called by each loop thread as it ends; the last one reports drained.
  void loop_finished() {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard<std::mutex> guard{mutex};
      if (--loops_left > 0)
        return;
      callbacks.swap(on_drained);
    }
    for (auto& f : callbacks)
      if (f)
        f();
  }
};

server::server(server_options options, std::shared_ptr<handler> h,
               std::shared_ptr<runtime::statistics::connection_stats> stats,
               std::shared_ptr<runtime::statistics::byte_budget> input)
  : options_(std::move(options)), handler_(std::move(h)), stats_(std::move(stats)),
    input_(std::move(input)) {
  if (!stats_)
    stats_ = std::make_shared<runtime::statistics::connection_stats>();
  if (!input_)
    input_ = std::make_shared<runtime::statistics::byte_budget>(options_.policy.max_inflight_bytes);
}

server::~server() {
  abort();
  join_threads();
}

bool server::running() const {
  if (!state_)
    return false;
  std::lock_guard<std::mutex> guard{state_->mutex};
  return state_->loops_left > 0;
}

runtime::status server::open_loops(std::vector<std::shared_ptr<loop>>& loops) {
  CONCH_RUNTIME_RETURN_IF_ERROR(check(options_));
  if (handler_ == nullptr)
    return runtime::invalid_argument("the HTTP transport needs a handler");
  auto addr = resolve_address(options_.address, static_cast<uint16_t>(options_.port));
  if (!addr)
    return addr.error();
  auto shared = std::make_shared<loop_shared>();
  shared->stats = stats_;
  shared->input = input_;
  for (int i = 0; i < options_.thread_count; ++i) {
    auto l = std::make_shared<loop>(options_, handler_, shared);
    loops.push_back(l);
    runtime::status st;
    if (i > 0 && !options_.reuse_port) {
      st = l->open_shared(*loops.front());
    } else {
      // Every reuse_port loop binds the port the first one got.
      if (i > 0)
        addr = resolve_address(options_.address, loops.front()->port());
      st = l->open(*addr);
    }
    if (!st)
      return st;
  }
  return runtime::status::ok();
}

runtime::status server::start() {
  if (running())
    return runtime::unavailable("the HTTP transport is running already");
  ignore_sigpipe_unless_handled();
  join_threads();
  std::vector<std::shared_ptr<loop>> loops;
  if (auto st = open_loops(loops); !st) {
    for (auto& l : loops)
      l->dispose();
    return st;
  }
  bound_port_ = loops.front()->port();
  stats_->port.store(bound_port_, std::memory_order_relaxed);
  state_ = std::make_shared<run_state>();
  state_->loops_left = static_cast<int>(loops.size());
  loops_ = std::move(loops);
  for (auto& l : loops_)
    threads_.emplace_back([l, state = state_, failed = failure_handler_] {
      l->run();
      if (state->ended_unexpectedly() && failed)
        failed(runtime::unavailable("an HTTP loop thread ended unexpectedly"));
      state->loop_finished();
    });
  return runtime::status::ok();
}

void server::begin_stop(std::function<void()> drained) {
  bool now = true;
  if (state_) {
    std::lock_guard<std::mutex> guard{state_->mutex};
    state_->stopping = true;
    if (state_->loops_left > 0) {
      state_->on_drained.push_back(std::move(drained));
      now = false;
    }
  }
  if (now) {
    if (drained)
      drained();
    return;
  }
  for (auto& l : loops_)
    l->command(loop_command::drain);
}

void server::abort() {
  if (state_)
    state_->begin_stopping();
  for (auto& l : loops_)
    l->command(loop_command::abort);
}

void server::inject_loop_failure() {
  if (!loops_.empty())
    loops_.front()->command(loop_command::abort);
}

void server::join_threads() {
  for (auto& t : threads_) {
    // A drained callback may destroy the server on its own loop thread.
    if (t.get_id() == std::this_thread::get_id())
      t.detach();
    else if (t.joinable())
      t.join();
  }
  threads_.clear();
  loops_.clear();
}

} // namespace conch::transports::http
