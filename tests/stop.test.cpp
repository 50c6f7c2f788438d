// The stop protocol through the public API: in-flight requests, the exit
// timeout, frontends stopped before models, and starting again.

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <gtest/gtest.h>

#include "conch/actors/frontend_transport.hpp"
#include "support/destroy_within.hpp"
#include "support/gate_backend.hpp"
#include "support/model_configs.hpp"
#include "support/response_collector.hpp"
#include "support/server_fixture.hpp"
#include "support/temp_repository.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

using namespace std::chrono_literals;
using runtime::errc;

// -- an ordered log of what happened, from any thread -----------------------------------

class event_log {
 public:
  void add(std::string e) {
    std::lock_guard<std::mutex> guard{mu_};
    events_.push_back(std::move(e));
  }
  std::vector<std::string> events() const {
    std::lock_guard<std::mutex> guard{mu_};
    return events_;
  }
  // The position of `e` in the log; -1 when absent.
  int position(const std::string& e) const {
    std::lock_guard<std::mutex> guard{mu_};
    for (size_t i = 0; i < events_.size(); ++i)
      if (events_[i] == e)
        return static_cast<int>(i);
    return -1;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

// A frontend written against frontend_transport, as a transport would be.
// It logs its calls as "<name>.<call>"; what begin_stop does is up to the
// test (by default it reports drained at once).
class test_frontend final : public actors::frontend_transport {
 public:
  test_frontend(std::string name, std::shared_ptr<event_log> log,
                runtime::status start_result = runtime::status::ok())
    : name_(std::move(name)), log_(std::move(log)), start_result_(std::move(start_result)) {}

  std::string name() const override { return name_; }

  runtime::status start() override {
    log_->add(name_ + ".start");
    return start_result_;
  }

  void begin_stop(std::function<void()> drained) override {
    log_->add(name_ + ".begin_stop");
    ++begin_stops;
    if (on_begin_stop) {
      on_begin_stop(std::move(drained));
      return;
    }
    log_->add(name_ + ".drained");
    drained();
  }

  void abort() override {
    log_->add(name_ + ".abort");
    if (on_abort)
      on_abort();
  }

  std::function<void(std::function<void()>)> on_begin_stop;
  std::function<void()> on_abort;
  std::atomic<int> begin_stops{0};

 private:
  std::string name_;
  std::shared_ptr<event_log> log_;
  runtime::status start_result_;
};

class stop_protocol : public server_fixture {
 protected:
  actors::server serve(uint32_t exit_timeout = 10) {
    auto o = options_for(repo_.str());
    o.exit_timeout = exit_timeout;
    auto s = start(o);
    EXPECT_TRUE(s) << s.error().to_string();
    return s ? *s : throw std::runtime_error("server did not start");
  }

  temp_repository repo_;
};

// -- in-flight requests ------------------------------------------------------------------

TEST_F(stop_protocol, every_request_in_flight_is_answered_exactly_once) {
  repo_.add_model("slow", delayed_identity_config("slow", 20, 1));
  auto srv = serve();
  response_collector c;
  std::atomic<int> submitted{0};
  auto submit = [&](int t) {
    for (int i = 0; i < 10; ++i) {
      srv.submit(fp32_request("slow", std::to_string(t) + "-" + std::to_string(i)), c.callback());
      ++submitted;
    }
  };
  std::thread t1{submit, 1};
  std::thread t2{submit, 2};
  // Stop once the model is busy, while the threads may still submit.
  ASSERT_TRUE(c.wait_responses(1));
  auto st = srv.stop();
  t1.join();
  t2.join();
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  ASSERT_TRUE(c.wait_finals(20)) << c.finals() << " of 20 answered";
  auto per_id = c.finals_per_id();
  EXPECT_EQ(per_id.size(), 20u);
  for (const auto& [id, n] : per_id)
    EXPECT_EQ(n, 1u) << id;
  size_t ok = 0;
  for (const auto& e : c.entries()) {
    auto code = e.response.error.code();
    EXPECT_TRUE(code == errc::ok || code == errc::unavailable || code == errc::cancelled)
      << e.response.error.to_string();
    ok += code == errc::ok ? 1 : 0;
  }
  EXPECT_GE(ok, 1u);
  EXPECT_EQ(c.entries().size(), 20u);
}

TEST_F(stop_protocol, requests_admitted_before_stop_complete_successfully) {
  repo_.add_model("slow", delayed_identity_config("slow", 10, 1));
  auto srv = serve();
  response_collector c;
  for (int i = 0; i < 10; ++i)
    srv.submit(fp32_request("slow", std::to_string(i)), c.callback());
  EXPECT_TRUE(srv.stop().is_ok());
  ASSERT_TRUE(c.wait_finals(10));
  for (const auto& e : c.entries())
    EXPECT_TRUE(e.response.error.is_ok()) << e.response.id << ": " << e.response.error.to_string();
}

TEST(stop_exit_timeout, abandons_a_long_request_and_the_actor_system_still_shuts_down) {
  temp_repository repo;
  repo.add_model("forever", delayed_identity_config("forever", 30000, 1));
  caf::actor_system_config cfg;
  actors::configure_actor_system(cfg);
  auto sys = std::make_unique<caf::actor_system>(cfg);
  auto o = options_for(repo.str());
  o.exit_timeout = 1;
  response_collector c;
  {
    auto srv = actors::server::start(*sys, o);
    ASSERT_TRUE(srv) << srv.error().to_string();
    auto handle = srv->submit(fp32_request("forever", "long"), c.callback());
    auto begin = std::chrono::steady_clock::now();
    auto st = srv->stop();
    auto took = std::chrono::steady_clock::now() - begin;
    EXPECT_EQ(st.code(), errc::internal) << st.to_string();
    EXPECT_EQ(st.message(), "Exit timeout expired. Exiting immediately.");
    EXPECT_GE(took, 900ms);
    EXPECT_LT(took, 8s);
    ASSERT_TRUE(c.wait_finals(1, 5s));
    auto code = c.final_response().error.code();
    EXPECT_TRUE(code == errc::cancelled || code == errc::unavailable)
      << c.final_response().error.to_string();
    EXPECT_TRUE(handle.completed());
  }
  destroy_within(std::move(sys), 15s);
}

// -- frontends ------------------------------------------------------------------------------

TEST_F(stop_protocol, frontends_stop_while_models_still_serve) {
  auto g = std::make_shared<gate>();
  register_gate_backend("gate_stop_order", g);
  repo_.add_model("held", gate_config("held", "gate_stop_order", 0));
  auto srv = serve();
  auto log = std::make_shared<event_log>();

  // A request held inside the model until the frontend is told to stop.
  response_collector c;
  auto held = srv.submit(make_request("held", "held",
                                     {make_tensor("INPUT0", runtime::data_type::fp32, {4},
                                                  std::vector<float>(4, 1.0f))}),
                        [log, cb = c.callback()](runtime::inference_response&& r) mutable {
                          log->add(r.error.is_ok() ? "model.response" : "model.error");
                          cb(std::move(r));
                        });
  ASSERT_TRUE(g->wait_entered(1));

  auto fe = std::make_shared<test_frontend>("fe", log);
  std::atomic<bool> in_flight_at_begin_stop{false};
  // The frontend drains at once, and only then lets the model finish: the
  // model must still serve after every frontend has stopped.
  fe->on_begin_stop = [&, log](std::function<void()> drained) {
    in_flight_at_begin_stop = !held.completed();
    log->add("fe.drained");
    drained();
    g->open();
  };
  auto added = srv.add_frontend(fe);
  ASSERT_TRUE(added) << added.error().to_string();

  auto st = srv.stop();
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  log->add("stop.returned");
  ASSERT_TRUE(c.wait_finals(1));
  EXPECT_TRUE(c.final_response().error.is_ok()) << c.final_response().error.to_string();
  EXPECT_TRUE(in_flight_at_begin_stop);
  EXPECT_EQ(log->events(), (std::vector<std::string>{"fe.start", "fe.begin_stop", "fe.drained",
                                                      "model.response", "stop.returned"}));
  EXPECT_EQ(fe->begin_stops.load(), 1);
}

TEST_F(stop_protocol, a_request_a_frontend_makes_during_begin_stop_is_refused_once) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve();
  auto log = std::make_shared<event_log>();
  auto fe = std::make_shared<test_frontend>("fe", log);
  // The frontend submits a request from begin_stop and reports drained once
  // it is answered.
  std::promise<runtime::inference_response> answered;
  fe->on_begin_stop = [&, log](std::function<void()> drained) {
    srv.submit(fp32_request("m", "from-frontend"),
              [&answered, log, drained](runtime::inference_response&& r) {
                log->add("fe.request_answered");
                answered.set_value(r);
                log->add("fe.drained");
                drained();
              });
  };
  ASSERT_TRUE(srv.add_frontend(fe));
  auto st = srv.stop();
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  auto future = answered.get_future();
  ASSERT_EQ(future.wait_for(5s), std::future_status::ready);
  // The server stopped admitting before it stopped the frontends, so a
  // request made during begin_stop is refused; it is still answered once.
  auto r = future.get();
  EXPECT_EQ(r.error.code(), errc::unavailable) << r.error.to_string();
  EXPECT_LT(log->position("fe.begin_stop"), log->position("fe.drained"));
}

TEST_F(stop_protocol, a_frontend_that_never_drains_is_aborted_at_the_exit_timeout) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve(1);
  auto log = std::make_shared<event_log>();
  auto fe = std::make_shared<test_frontend>("fe", log);
  std::function<void()> kept;
  std::mutex kept_mu;
  fe->on_begin_stop = [&](std::function<void()> drained) {
    std::lock_guard<std::mutex> guard{kept_mu};
    kept = std::move(drained);
  };
  fe->on_abort = [&] {
    std::lock_guard<std::mutex> guard{kept_mu};
    if (kept)
      kept();
  };
  ASSERT_TRUE(srv.add_frontend(fe));
  auto st = srv.stop();
  EXPECT_EQ(st.code(), errc::internal) << st.to_string();
  EXPECT_EQ(st.message(), "Exit timeout expired. Exiting immediately.");
  EXPECT_GE(log->position("fe.abort"), 0);
  EXPECT_LT(log->position("fe.begin_stop"), log->position("fe.abort"));
}

TEST_F(stop_protocol, a_frontend_that_fails_to_start_is_reported_and_never_stopped) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve();
  auto log = std::make_shared<event_log>();
  auto fe = std::make_shared<test_frontend>("broken", log,
                                            runtime::unavailable("address already in use"));
  auto added = srv.add_frontend(fe);
  ASSERT_FALSE(added);
  EXPECT_EQ(added.error().code(), errc::unavailable) << added.error().to_string();
  EXPECT_EQ(added.error().message(), "address already in use");
  EXPECT_TRUE(srv.ready());
  EXPECT_TRUE(infer_sync(srv, fp32_request("m", "x")).error.is_ok());
  EXPECT_TRUE(srv.stop().is_ok());
  EXPECT_EQ(fe->begin_stops.load(), 0);
}

TEST_F(stop_protocol, stop_frontend_stops_that_frontend_alone) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve();
  auto log = std::make_shared<event_log>();
  auto a = std::make_shared<test_frontend>("a", log);
  auto b = std::make_shared<test_frontend>("b", log);
  auto fa = srv.add_frontend(a);
  auto fb = srv.add_frontend(b);
  ASSERT_TRUE(fa);
  ASSERT_TRUE(fb);
  EXPECT_TRUE(srv.stop_frontend(*fa).is_ok());
  EXPECT_EQ(a->begin_stops.load(), 1);
  EXPECT_EQ(b->begin_stops.load(), 0);
  EXPECT_TRUE(srv.ready());
  EXPECT_TRUE(infer_sync(srv, fp32_request("m", "x")).error.is_ok());
  EXPECT_TRUE(srv.stop().is_ok());
  EXPECT_EQ(a->begin_stops.load(), 1);
  EXPECT_EQ(b->begin_stops.load(), 1);
}

TEST_F(stop_protocol, adding_a_frontend_after_stop_fails) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve();
  ASSERT_TRUE(srv.stop().is_ok());
  auto log = std::make_shared<event_log>();
  auto added = srv.add_frontend(std::make_shared<test_frontend>("late", log));
  EXPECT_FALSE(added);
  EXPECT_EQ(log->position("late.start"), -1);
}

// -- again ---------------------------------------------------------------------------------

TEST_F(stop_protocol, a_new_server_starts_over_the_same_repository_after_stop) {
  repo_.add_model("m", identity_config("m", 8));
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    auto srv = serve();
    EXPECT_TRUE(srv.ready());
    EXPECT_TRUE(infer_sync(srv, fp32_request("m", "x")).error.is_ok());
    EXPECT_TRUE(srv.stop().is_ok());
    EXPECT_FALSE(srv.live());
  }
}

TEST_F(stop_protocol, dropping_the_last_handle_stops_the_server) {
  repo_.add_model("m", identity_config("m", 8));
  actors::supervisor_actor root;
  {
    auto s = actors::server::start(sys(), options_for(repo_.str()));
    ASSERT_TRUE(s) << s.error().to_string();
    root = s->handle();
  }
  caf::scoped_actor self{sys()};
  self->monitor(root);
  bool down = false;
  self->receive([&](const caf::down_msg&) { down = true; }, caf::after(10s) >> [] {});
  EXPECT_TRUE(down);
}

} // namespace
} // namespace conch::tests
