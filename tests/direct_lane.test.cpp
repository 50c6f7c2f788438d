// The direct lane through the public API: server::submit with
// placement::may_run_here answers a small request to an idle instance of a
// model that does not batch on the calling thread, posts one to a model that
// may block to its instance's worker, and queues everything else.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/metrics_text.hpp"
#include "support/model_configs.hpp"
#include "support/response_collector.hpp"
#include "support/server_fixture.hpp"
#include "support/temp_repository.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

using namespace std::chrono_literals;
using actors::control_mode;
using runtime::data_type;
using runtime::errc;

// Where and when the final answer of one request arrived.
struct arrival {
  runtime::inference_response response;
  bool on_caller = false;
  bool before_return = false;
  std::thread::id thread;
};

// Submits `request` with placement::may_run_here (or queued) and waits for its final
// answer.
arrival submit(actors::server& srv, runtime::inference_request request, bool inline_ok = true) {
  struct state {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<arrival> final;
    std::atomic<bool> returned{false};
  };
  auto s = std::make_shared<state>();
  auto caller = std::this_thread::get_id();
  auto on_response = [s, caller](runtime::inference_response&& r) {
    if (!r.final)
      return;
    arrival a{std::move(r), std::this_thread::get_id() == caller, !s->returned.load(),
              std::this_thread::get_id()};
    std::lock_guard<std::mutex> guard{s->mu};
    s->final = std::move(a);
    s->cv.notify_all();
  };
  if (inline_ok)
    srv.submit(std::move(request), on_response, conch::runtime::inprocess_may_run_here);
  else
    srv.submit(std::move(request), on_response);
  s->returned = true;
  std::unique_lock<std::mutex> lock{s->mu};
  if (!s->cv.wait_for(lock, 10s, [&] { return s->final.has_value(); })) {
    arrival none;
    none.response.error = runtime::internal_error("test: no answer");
    return none;
  }
  return std::move(*s->final);
}

std::string repeat_config(const std::string& name) {
  return "name: \"" + name + "\"\nbackend: \"repeat\"\nmax_batch_size: 0\n"
         "model_transaction_policy { decoupled: true }\n"
         "input [ { name: \"IN\" data_type: TYPE_INT32 dims: [ -1 ] } ]\n"
         "output [ { name: \"OUT\" data_type: TYPE_INT32 dims: [ 1 ] },\n"
         "         { name: \"IDX\" data_type: TYPE_UINT32 dims: [ 1 ] } ]\n";
}

class direct_lane_api : public server_fixture {
 protected:
  actors::server serve(bool lane = true, control_mode mode = control_mode::none) {
    auto o = options_for(repo_.str(), mode);
    o.direct_lane = lane;
    auto s = start(o);
    EXPECT_TRUE(s) << s.error().to_string();
    return s ? *s : throw std::runtime_error("server did not start");
  }

  temp_repository repo_;
};

TEST_F(direct_lane_api, a_small_request_to_an_idle_instance_is_answered_on_the_calling_thread) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve();
  auto a = submit(srv, fp32_request("m", "x", 16, 3.0f));
  ASSERT_TRUE(a.response.error.is_ok()) << a.response.error.to_string();
  EXPECT_TRUE(a.on_caller);
  EXPECT_TRUE(a.before_return);
  ASSERT_EQ(a.response.outputs.size(), 1u);
  EXPECT_EQ(values_of<float>(a.response.outputs[0]),
            values_of<float>(fp32_request("m", "x", 16, 3.0f).inputs[0]));
  EXPECT_EQ(a.response.id, "x");
  EXPECT_EQ(a.response.model_version, 1);
}

TEST_F(direct_lane_api, infer_never_answers_on_the_calling_thread) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve();
  for (int i = 0; i < 5; ++i) {
    auto a = submit(srv, fp32_request("m", "x"), false);
    ASSERT_TRUE(a.response.error.is_ok()) << a.response.error.to_string();
    EXPECT_FALSE(a.on_caller);
  }
}

TEST_F(direct_lane_api, models_that_batch_block_stream_or_reorder_take_the_actor_path) {
  repo_.add_model("batching", identity_config("batching", 8, "dynamic_batching { }"));
  repo_.add_model("blocking", delayed_identity_config("blocking", 1));
  repo_.add_model("ordered", identity_config("ordered", 8,
                                             "instance_group [ { count: 2 kind: KIND_CPU } ]\n"
                                             "dynamic_batching { preserve_ordering: true }"));
  // Several instances reorder nothing (as in Triton): such a model runs on
  // the lane.
  repo_.add_model("two", identity_config("two", 8, "instance_group [ { count: 2 kind: KIND_CPU } ]"));
  repo_.add_model("stream", repeat_config("stream"));
  auto srv = serve();
  for (std::string model : {"batching", "blocking", "ordered"}) {
    SCOPED_TRACE(model);
    auto a = submit(srv, fp32_request(model, "x"));
    ASSERT_TRUE(a.response.error.is_ok()) << a.response.error.to_string();
    EXPECT_FALSE(a.on_caller);
  }
  auto two = submit(srv, fp32_request("two", "x"));
  ASSERT_TRUE(two.response.error.is_ok()) << two.response.error.to_string();
  EXPECT_TRUE(two.on_caller);
  auto a = submit(srv, make_request("stream", "s",
                                    {make_tensor("IN", data_type::int32, {3},
                                                 std::vector<int32_t>{1, 2, 3})}));
  ASSERT_TRUE(a.response.error.is_ok()) << a.response.error.to_string();
  EXPECT_FALSE(a.on_caller);
}

TEST_F(direct_lane_api, a_large_request_takes_the_actor_path) {
  constexpr size_t n = 32 * 1024;  // 128 KiB of FP32
  repo_.add_model("big", identity_config("big", 0, "", static_cast<int>(n)));
  auto srv = serve();
  auto a = submit(srv, fp32_request("big", "x", n, 0.0f, false));
  ASSERT_TRUE(a.response.error.is_ok()) << a.response.error.to_string();
  EXPECT_FALSE(a.on_caller);
  EXPECT_EQ(values_of<float>(a.response.outputs.at(0)).size(), n);
}

TEST_F(direct_lane_api, switched_off_every_request_goes_through_the_actors) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve(false);
  auto a = submit(srv, fp32_request("m", "x"));
  ASSERT_TRUE(a.response.error.is_ok()) << a.response.error.to_string();
  EXPECT_FALSE(a.on_caller);
}

TEST_F(direct_lane_api, bad_requests_get_the_same_answers_on_both_paths) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve();
  std::vector<runtime::inference_request> bad{
    fp32_request("m", "short", 8),
    fp32_request("nope", "unknown model"),
    make_request("m", "wrong type",
                 {make_tensor("INPUT0", data_type::int32, {1, 16}, std::vector<int32_t>(16))}),
    make_request("m", "no inputs", {}),
  };
  for (const auto& request : bad) {
    SCOPED_TRACE(request.id);
    auto here = submit(srv, request);
    auto there = submit(srv, request, false);
    EXPECT_FALSE(here.response.error.is_ok());
    EXPECT_EQ(here.response.error.code(), there.response.error.code());
    EXPECT_EQ(here.response.error.message(), there.response.error.message());
  }
}

// A callback that submits again on the lane's thread gets its answer too.
TEST_F(direct_lane_api, a_callback_may_submit_again_on_the_same_thread) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve();
  response_collector c;
  auto record = c.callback();
  srv.submit(fp32_request("m", "outer"), [&srv, record](runtime::inference_response&& r) {
    if (r.final && r.id == "outer")
      srv.submit(fp32_request("m", "inner"), record, conch::runtime::inprocess_may_run_here);
    record(std::move(r));
  }, conch::runtime::inprocess_may_run_here);
  ASSERT_TRUE(c.wait_finals(2));
  auto per_id = c.finals_per_id();
  EXPECT_EQ(per_id["outer"], 1u);
  EXPECT_EQ(per_id["inner"], 1u);
  for (const auto& e : c.entries())
    EXPECT_TRUE(e.response.error.is_ok()) << e.response.error.to_string();
}

TEST_F(direct_lane_api, statistics_count_requests_answered_on_the_lane) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve();
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE(submit(srv, fp32_request("m", std::to_string(i))).on_caller);
  (void) submit(srv, fp32_request("m", "bad", 8));
  auto stats = srv.model_statistics("m");
  ASSERT_TRUE(stats) << stats.error().to_string();
  ASSERT_EQ(stats->size(), 1u);
  const auto& s = (*stats)[0];
  EXPECT_EQ(s.success.count, 20u);
  EXPECT_EQ(s.fail.count, 1u);
  EXPECT_EQ(s.execution_count, 20u);
  EXPECT_EQ(s.inference_count, 20u);
  EXPECT_EQ(s.queue.count, 20u);
  EXPECT_EQ(s.compute_infer.count, 20u);
  EXPECT_GT(s.success.ns, 0u);
  EXPECT_GT(s.last_inference, 0u);
}

// Several threads submit both ways to single-instance models "a" and "b" at
// once: the lane and the queue trade the instances back and forth, and every
// request is answered once, correctly. Returns how many answers came on the
// thread that submitted them.
int submit_from_threads(actors::server& srv, int per_thread) {
  constexpr int threads = 4;
  std::atomic<int> wrong{0};
  std::atomic<int> inline_answers{0};
  response_collector c;
  std::vector<std::thread> submitters;
  for (int t = 0; t < threads; ++t)
    submitters.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        auto id = std::to_string(t) + "/" + std::to_string(i);
        auto base = static_cast<float>(t * per_thread + i);
        auto model = i % 3 == 0 ? "b" : "a";
        auto expect = values_of<float>(fp32_request(model, id, 16, base).inputs[0]);
        auto caller = std::this_thread::get_id();
        auto record = c.callback();
        auto check = [&, expect, caller, record](runtime::inference_response&& r) {
          if (!r.error.is_ok() || r.outputs.empty() || values_of<float>(r.outputs[0]) != expect)
            ++wrong;
          if (std::this_thread::get_id() == caller)
            ++inline_answers;
          record(std::move(r));
        };
        if (i % 4 == 3)
          srv.submit(fp32_request(model, id, 16, base), check);
        else
          srv.submit(fp32_request(model, id, 16, base), check,
                     conch::runtime::inprocess_may_run_here);
      }
    });
  for (auto& t : submitters)
    t.join();
  if (!c.wait_finals(threads * per_thread, 30s)) {
    ADD_FAILURE() << "answers are missing";
    return -1;
  }
  EXPECT_EQ(wrong.load(), 0);
  auto per_id = c.finals_per_id();
  EXPECT_EQ(per_id.size(), static_cast<size_t>(threads * per_thread));
  for (const auto& [id, n] : per_id)
    EXPECT_EQ(n, 1u) << id;
  return inline_answers.load();
}

TEST_F(direct_lane_api, concurrent_requests_on_both_paths_are_each_answered_once_and_right) {
  repo_.add_model("a", identity_config("a", 8));
  repo_.add_model("b", identity_config("b", 8));
  auto srv = serve();
  EXPECT_GT(submit_from_threads(srv, 300), 0);
  // The last answers may come before the instances are handed back.
  EXPECT_TRUE(eventually([&] { return submit(srv, fp32_request("a", "after")).on_caller; }))
    << "the lane did not open again";
}

// -- models that may block: the lane posts to the instance's worker ---------------

// Model code that may block never runs on the submitting thread: a lane
// request runs on the worker of the model's one instance, as a queued one
// does, and is answered there.
TEST_F(direct_lane_api, a_blocking_model_runs_lane_requests_on_its_instance_worker) {
  repo_.add_model("blocking", delayed_identity_config("blocking", 1, 0));
  auto srv = serve();
  std::set<std::thread::id> answered_on;
  for (int i = 0; i < 20; ++i) {
    auto base = static_cast<float>(i);
    auto a = submit(srv, fp32_request("blocking", std::to_string(i), 16, base, false),
                    i % 2 == 0);
    ASSERT_TRUE(a.response.error.is_ok()) << a.response.error.to_string();
    EXPECT_FALSE(a.on_caller);
    ASSERT_EQ(a.response.outputs.size(), 1u);
    EXPECT_EQ(values_of<float>(a.response.outputs[0]),
              values_of<float>(fp32_request("blocking", "x", 16, base, false).inputs[0]));
    answered_on.insert(a.thread);
  }
  EXPECT_EQ(answered_on.size(), 1u) << "one instance, one worker";
  auto stats = srv.model_statistics("blocking");
  ASSERT_TRUE(stats) << stats.error().to_string();
  EXPECT_EQ((*stats)[0].success.count, 20u);
  EXPECT_EQ((*stats)[0].execution_count, 20u);
}

TEST_F(direct_lane_api, concurrent_requests_to_blocking_models_are_each_answered_once_and_right) {
  repo_.add_model("a", delayed_identity_config("a", 1));
  repo_.add_model("b", delayed_identity_config("b", 1));
  auto srv = serve();
  EXPECT_EQ(submit_from_threads(srv, 40), 0) << "model code ran on a submitting thread";
}

// Threads that keep submitting with placement::may_run_here, each with at most
// `window` requests unanswered, until stopped.
class inline_load {
 public:
  inline_load(actors::server& srv, const std::string& model, int threads = 3,
              size_t window = 8)
    : collectors_(static_cast<size_t>(threads)), counts_(static_cast<size_t>(threads), 0) {
    for (int t = 0; t < threads; ++t)
      threads_.emplace_back([this, srv, model, t, window]() mutable {
        auto& c = collectors_[static_cast<size_t>(t)];
        auto& count = counts_[static_cast<size_t>(t)];
        for (; !stop_.load(); ++count) {
          if (count >= window && !c.wait_finals(count - window + 1))
            return;  // an answer is missing; the checks below say so
          srv.submit(fp32_request(model, std::to_string(t) + "/" + std::to_string(count)),
                     c.callback(), conch::runtime::inprocess_may_run_here);
          ++submitted_;
        }
      });
  }

  ~inline_load() { finish(); }

  /// Waits until `n` requests were submitted in all.
  bool submitted_at_least(int n) {
    return eventually([&] { return submitted_.load() >= n; });
  }

  /// Stops submitting, then checks that every request was answered exactly
  /// once, with OK or one of `allowed`.
  void finish_and_check(std::vector<errc> allowed) {
    finish();
    size_t answered = 0;
    for (auto& c : collectors_) {
      size_t n = 0;
      for (const auto& [id, finals] : c.finals_per_id()) {
        EXPECT_EQ(finals, 1u) << id;
        n += finals;
      }
      answered += n;
      for (const auto& e : c.entries()) {
        auto code = e.response.error.code();
        EXPECT_TRUE(code == errc::ok
                    || std::find(allowed.begin(), allowed.end(), code) != allowed.end())
          << e.response.error.to_string();
      }
    }
    EXPECT_EQ(answered, static_cast<size_t>(submitted_.load()));
  }

 private:
  void finish() {
    stop_ = true;
    for (auto& t : threads_)
      if (t.joinable())
        t.join();
    for (size_t t = 0; t < collectors_.size(); ++t)
      collectors_[t].wait_finals(counts_[t], 10s);
  }

  std::vector<response_collector> collectors_;
  std::vector<size_t> counts_;  // each written by its own thread until joined
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::atomic<int> submitted_{0};
};

// Requests keep arriving on the lane while the model is unloaded: each is
// answered once, the unload completes, and a reload opens a new lane.
TEST_F(direct_lane_api, unloading_under_inline_load_answers_everything_and_reloads) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve(true, control_mode::explicit_);
  ASSERT_TRUE(srv.load("m").is_ok());
  {
    inline_load load{srv, "m"};
    ASSERT_TRUE(load.submitted_at_least(300));
    EXPECT_TRUE(srv.unload("m").is_ok());
    load.finish_and_check({errc::unavailable, errc::not_found});
  }
  EXPECT_FALSE(submit(srv, fp32_request("m", "gone")).response.error.is_ok());
  ASSERT_TRUE(srv.load("m").is_ok());
  auto a = submit(srv, fp32_request("m", "back"));
  EXPECT_TRUE(a.response.error.is_ok()) << a.response.error.to_string();
  EXPECT_TRUE(a.on_caller);
}

// A reload swaps the model's scheduler and lane while requests keep coming:
// none of them notices.
TEST_F(direct_lane_api, reloading_under_inline_load_loses_no_request) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve(true, control_mode::explicit_);
  ASSERT_TRUE(srv.load("m").is_ok());
  {
    inline_load load{srv, "m"};
    for (int round = 0; round < 3; ++round) {
      ASSERT_TRUE(load.submitted_at_least(300 * (round + 1)));
      repo_.write("m/config.pbtxt", identity_config("m", 8 + round + 1));
      ASSERT_TRUE(srv.load("m").is_ok());
    }
    load.finish_and_check({});
  }
  auto config = srv.model_config("m");
  ASSERT_TRUE(config);
  EXPECT_EQ((*config)->max_batch_size(), 11);
  EXPECT_TRUE(eventually([&] { return submit(srv, fp32_request("m", "after")).on_caller; }));
}

TEST_F(direct_lane_api, stopping_the_server_under_inline_load_answers_everything) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve();
  inline_load load{srv, "m"};
  ASSERT_TRUE(load.submitted_at_least(300));
  EXPECT_TRUE(srv.stop().is_ok());
  load.finish_and_check({errc::unavailable});
}

// A model that may block, unloaded while its lane posts requests to its worker.
TEST_F(direct_lane_api, unloading_a_blocking_model_under_inline_load_answers_everything) {
  repo_.add_model("m", delayed_identity_config("m", 1));
  auto srv = serve(true, control_mode::explicit_);
  ASSERT_TRUE(srv.load("m").is_ok());
  {
    inline_load load{srv, "m"};
    ASSERT_TRUE(load.submitted_at_least(60));
    EXPECT_TRUE(srv.unload("m").is_ok());
    load.finish_and_check({errc::unavailable, errc::not_found});
  }
  ASSERT_TRUE(srv.load("m").is_ok());
  auto a = submit(srv, fp32_request("m", "back"));
  EXPECT_TRUE(a.response.error.is_ok()) << a.response.error.to_string();
}

// Under load, requests to a model that may block wait in its lane while
// every instance runs, and each instance's worker goes from one to the next.
// Two instances, submitters that keep more requests in flight than
// instances: every request is answered once and right, on one of the two
// workers, and nothing is left counted as queued.
TEST_F(direct_lane_api, requests_waiting_in_a_busy_lane_are_each_answered_once_and_right) {
  repo_.add_model("m", delayed_identity_config("m", 0, 8,
                                               "instance_group [ { count: 2 kind: KIND_CPU } ]"));
  auto srv = serve();
  std::mutex mu;
  std::set<std::thread::id> workers;
  std::atomic<int> wrong{0};
  response_collector c;
  constexpr int threads = 4, per_thread = 200;
  std::vector<std::thread> submitters;
  for (int t = 0; t < threads; ++t)
    submitters.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        auto base = static_cast<float>(t * per_thread + i);
        auto id = std::to_string(t) + "/" + std::to_string(i);
        auto expect = values_of<float>(fp32_request("m", id, 16, base).inputs[0]);
        auto record = c.callback();
        srv.submit(fp32_request("m", id, 16, base),
                   [&, expect, record](runtime::inference_response&& r) {
                     if (!r.error.is_ok() || r.outputs.empty()
                         || values_of<float>(r.outputs[0]) != expect)
                       ++wrong;
                     {
                       std::lock_guard<std::mutex> guard{mu};
                       workers.insert(std::this_thread::get_id());
                     }
                     record(std::move(r));
                   },
                   conch::runtime::inprocess_may_run_here);
      }
    });
  for (auto& t : submitters)
    t.join();
  ASSERT_TRUE(c.wait_finals(threads * per_thread, 30s)) << "answers are missing";
  EXPECT_EQ(wrong.load(), 0);
  for (const auto& [id, n] : c.finals_per_id())
    EXPECT_EQ(n, 1u) << id;
  EXPECT_LE(workers.size(), 2u) << "two instances, two workers";
  auto stats = srv.model_statistics("m");
  ASSERT_TRUE(stats) << stats.error().to_string();
  EXPECT_EQ((*stats)[0].success.count, static_cast<uint64_t>(threads * per_thread));
  EXPECT_TRUE(eventually([&] {
    return metric_value(srv.metrics_text(), "nv_inference_pending_request_count",
                        "model=\"m\",version=\"1\"")
           == 0.0;
  })) << "a waiting job counts as queued until it runs";
}

// A model that may block, reloaded and then stopped while requests wait in its
// lane: each is answered once.
TEST_F(direct_lane_api, reloading_and_stopping_a_blocking_model_under_load_answers_everything) {
  repo_.add_model("m", delayed_identity_config("m", 0, 8));
  auto srv = serve(true, control_mode::explicit_);
  ASSERT_TRUE(srv.load("m").is_ok());
  inline_load load{srv, "m", 4, 16};
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(load.submitted_at_least(400 * (round + 1)));
    repo_.write("m/config.pbtxt", delayed_identity_config("m", 0, 8 + round + 1));
    ASSERT_TRUE(srv.load("m").is_ok());
  }
  ASSERT_TRUE(load.submitted_at_least(1200));
  EXPECT_TRUE(srv.stop().is_ok());
  load.finish_and_check({errc::unavailable});
}

} // namespace
} // namespace conch::tests
