// conch-embed-example: embeds Conch in an application's own CAF actor system.
//
// The program owns its actor_system_config (with Conch's scheduler settings
// applied) and its actor system, runs an actor of its own that monitors the
// server's supervisor, sends 10,000 requests to identity_fp32 from 4 threads,
// checks that every output equals its input, stops the server and lets the
// actor system shut down. It exits 0 only when every request succeeded.
//
//   conch-embed-example python/examples/example_model_repository

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <future>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>

#include "conch/actors/server.hpp"
#include "conch/actors/server_host.hpp"

namespace {

using namespace conch::runtime;

constexpr int thread_count = 4;
constexpr int requests_per_thread = 2500;
constexpr int total_requests = thread_count * requests_per_thread;
constexpr size_t elements = 16;

// -- the application's own actor ------------------------------------------------

// Watches the server from the application's supervision tree: it monitors the
// server's root supervisor and reports, through `ended`, why it went away.
caf::behavior server_watcher(caf::event_based_actor* self,
                             conch::actors::supervisor_actor server_root,
                             std::shared_ptr<std::promise<std::string>> ended) {
  self->monitor(server_root);
  self->set_down_handler([self, ended](caf::down_msg& msg) {
    ended->set_value(msg.reason ? to_string(msg.reason) : "normal exit");
    // The watcher's job is done; quitting lets the actor system shut down.
    self->quit();
  });
  // A non-empty behavior keeps the actor waiting for messages; the handle
  // that serve() holds keeps it reachable until the down message arrives.
  return {
    [](caf::get_atom) { return std::string{"watching"}; },
  };
}

// -- requests and the completion counter ----------------------------------------------

// Counts answers; the submitting threads never block, main waits here once.
struct tally {
  std::mutex mu;
  std::condition_variable cv;
  int remaining = total_requests;
  std::atomic<int> succeeded{0};
  std::atomic<int> failed{0};
  std::string first_error;

  void record(bool ok, const std::string& error) {
    (ok ? succeeded : failed).fetch_add(1, std::memory_order_relaxed);
    std::lock_guard<std::mutex> guard{mu};
    if (!ok && first_error.empty())
      first_error = error;
    if (--remaining == 0)
      cv.notify_all();
  }

  bool wait_all(std::chrono::seconds deadline) {
    std::unique_lock<std::mutex> lock{mu};
    return cv.wait_for(lock, deadline, [this] { return remaining == 0; });
  }
};

// Distinct values per request, so a response mixed up with another fails.
std::array<float, elements> values_of(int thread, int index) {
  std::array<float, elements> v;
  for (size_t k = 0; k < elements; ++k)
    v[k] = static_cast<float>(thread * 100000 + index) + static_cast<float>(k) * 0.25f;
  return v;
}

inference_request make_request(const std::array<float, elements>& v) {
  inference_request request;
  request.model_name = "identity_fp32";
  request.inputs.push_back(tensor{"INPUT0", data_type::fp32, {1, elements},
                                  buffer::copy_of(v.data(), sizeof(v))});
  return request;
}

// Empty when the response holds exactly `expected` in OUTPUT0.
std::string check(const inference_response& r, const std::array<float, elements>& expected) {
  if (!r.error.is_ok())
    return r.error.to_string();
  if (r.outputs.size() != 1 || r.outputs[0].name != "OUTPUT0")
    return "expected one output, OUTPUT0";
  const auto& out = r.outputs[0];
  if (out.type != data_type::fp32 || out.data.size() != sizeof(expected))
    return "OUTPUT0 has the wrong type or size";
  if (std::memcmp(out.data.data(), expected.data(), sizeof(expected)) != 0)
    return "OUTPUT0 differs from INPUT0";
  return {};
}

void submit_all(conch::server srv, int thread, std::shared_ptr<tally> counts) {
  for (int i = 0; i < requests_per_thread; ++i) {
    auto expected = values_of(thread, i);
    // The callback runs on a Conch thread: it checks and counts, nothing more.
    // It shares the tally, so a late answer after a timeout stays harmless.
    srv.submit(make_request(expected), [counts, expected](inference_response&& r) {
      if (!r.final)
        return;
      auto error = check(r, expected);
      counts->record(error.empty(), error);
    });
  }
}

// -- the program ---------------------------------------------------------------------

// Runs the workload on a started server; true when every request succeeded.
bool run_workload(conch::server& srv) {
  auto shared = std::make_shared<tally>();
  auto& counts = *shared;
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t)
    threads.emplace_back(submit_all, srv, t, shared);
  for (auto& th : threads)
    th.join();
  bool all_answered = counts.wait_all(std::chrono::seconds{60});
  auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start);
  std::lock_guard<std::mutex> guard{counts.mu};
  std::cout << "requests: " << total_requests << " from " << thread_count << " threads, "
            << counts.succeeded.load() << " succeeded, " << counts.failed.load() << " failed, "
            << total_requests - counts.succeeded.load() - counts.failed.load()
            << " unanswered, in " << elapsed.count() << " s\n";
  if (!counts.first_error.empty())
    std::cout << "first error: " << counts.first_error << "\n";
  return all_answered && counts.succeeded.load() == total_requests;
}

// Starts the server in `sys`, watches it, runs the workload and stops it.
bool serve(caf::actor_system& sys, const std::string& repository) {
  conch::server_options options;
  options.model_repository = {repository};
  // Serve what this C++-only process can: models that need the Python
  // backends stay UNAVAILABLE instead of failing the start.
  options.exit_on_error = false;
  auto started = conch::server::start(sys, options);
  if (!started) {
    std::cerr << "conch-embed-example: " << started.error().to_string() << "\n";
    return false;
  }
  auto srv = std::move(*started);
  auto ended = std::make_shared<std::promise<std::string>>();
  auto server_gone = ended->get_future();
  // Keep the handle: CAF destroys an idle actor that nobody references
  // (a monitor does not count), and the down message would go nowhere.
  caf::actor watcher = sys.spawn(server_watcher, srv.handle(), ended);

  bool ok = run_workload(srv);
  auto st = srv.stop();
  std::cout << "server stopped: " << st.to_string() << "\n";
  if (server_gone.wait_for(std::chrono::seconds{30}) != std::future_status::ready) {
    std::cout << "the watcher never saw the server end\n";
    return false;
  }
  std::cout << "watcher saw the server end: " << server_gone.get() << "\n";
  return ok && st.is_ok();
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: conch-embed-example <model repository>\n";
    return 2;
  }
  bool ok = false;
  {
    // The application's own configuration: Conch's scheduler settings go in
    // before the actor system is created, next to the application's own.
    caf::actor_system_config cfg;
    conch::actors::host_options host;
    host.scheduler_threads = 2;
    conch::actors::configure_actor_system(cfg, host);
    caf::actor_system sys{cfg};
    ok = serve(sys, argv[1]);
    // Leaving the scope destroys the actor system, which waits for every
    // actor: it returns because the server stopped and the watcher quit.
  }
  std::cout << (ok ? "PASS" : "FAIL") << "\n";
  return ok ? 0 : 1;
}
