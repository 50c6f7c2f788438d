#include "conch/actors/supervision/server_supervisor.hpp"

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <caf/send.hpp>
#include <gtest/gtest.h>

#include "conch/actors/test/deterministic_fixture.hpp"

using namespace conch::runtime;
using namespace std::chrono_literals;

namespace conch::actors {
namespace {

// A frontend that records what the supervisor asks of it and drains only
// when the test says so.
struct test_frontend : frontend_transport {
  std::vector<std::string>& events;
  std::function<void()> drained;
  bool fail_start = false;
  explicit test_frontend(std::vector<std::string>& e) : events(e) {}
  std::string name() const override { return "test"; }
  status start() override {
    events.push_back("frontend start");
    return fail_start ? unavailable("port in use") : status::ok();
  }
  void begin_stop(std::function<void()> d) override {
    events.push_back("frontend begin_stop");
    drained = std::move(d);
  }
  void abort() override {
    events.push_back("frontend abort");
    if (drained)
      drained();
  }
};

struct supervisor_test : test::deterministic_fixture {
  std::filesystem::path repo;
  std::vector<std::string> events;
  supervisor_actor supervisor;
  caf::actor watcher;
  std::shared_ptr<server_flags> flags = std::make_shared<server_flags>();

  supervisor_test() {
    std::random_device rd;
    repo = std::filesystem::temp_directory_path() / ("conch-supervisor-" + std::to_string(rd()));
    std::filesystem::create_directories(repo);
  }
  ~supervisor_test() override {
    if (supervisor)
      caf::anon_send_exit(supervisor, caf::exit_reason::kill);
    if (watcher)
      caf::anon_send_exit(watcher, caf::exit_reason::kill);
    run();
    std::filesystem::remove_all(repo);
  }

  void start(uint32_t exit_timeout = 30) {
    supervisor_spec spec;
    spec.options.model_repository = {repo.string()};
    spec.options.exit_timeout = exit_timeout;
    spec.flags = flags;
    spec.metrics = std::make_shared<statistics::metrics_registry>();
    spec.slots = std::make_shared<adapter_slots>(2, 1);
    spec.allow_detached = false;
    supervisor = sys.spawn<server_supervisor>(spec);
    bool loaded = false;
    sys.spawn([&](caf::event_based_actor* self) {
      self->request(supervisor, caf::infinite, init_atom_v)
        .then([&](std::vector<std::string>& failures) { loaded = failures.empty(); });
    });
    run();
    ASSERT_TRUE(loaded);
    // Watch the adapter pool and the repository go down.
    watcher = sys.spawn([&](caf::event_based_actor* self) -> caf::behavior {
      self->request(supervisor, caf::infinite, caf::get_atom_v)
        .then([=](repository_actor& repository, adapter_pool_actor& pool) {
          self->monitor(repository);
          self->monitor(pool);
          auto repo_addr = repository.address();
          self->set_down_handler([=](caf::down_msg& dm) {
            events.push_back(dm.source == repo_addr ? "repository down" : "adapters down");
          });
        });
      return {[](int) {}};
    });
    run();
  }

  status add(std::shared_ptr<test_frontend> fe) {
    status out = internal_error("no answer");
    sys.spawn([&](caf::event_based_actor* self) {
      self->request(supervisor, caf::infinite, frontend_atom_v, frontend_transport_ptr{fe})
        .then([&](status& st, frontend_actor&) { out = st; });
    });
    run();
    return out;
  }

  std::shared_ptr<status> stop() {
    auto out = std::make_shared<status>(internal_error("no answer yet"));
    sys.spawn([=](caf::event_based_actor* self) {
      self->request(supervisor, caf::infinite, stop_atom_v).then([=](status& st) {
        *out = st;
        events.push_back("stop answered");
      });
    });
    run();
    return out;
  }
};

TEST_F(supervisor_test, frontends_stop_before_adapters_and_models) {
  start();
  auto fe = std::make_shared<test_frontend>(events);
  ASSERT_TRUE(add(fe));
  auto result = stop();
  EXPECT_EQ(events, (std::vector<std::string>{"frontend start", "frontend begin_stop"}))
    << "adapters or models stopped before the frontend drained";
  EXPECT_FALSE(flags->accepting.load());
  fe->drained();
  run();
  EXPECT_EQ(events, (std::vector<std::string>{"frontend start", "frontend begin_stop",
                                              "adapters down", "repository down",
                                              "stop answered"}));
  EXPECT_TRUE(*result) << result->to_string();
  supervisor = nullptr;
}

TEST_F(supervisor_test, exit_timeout_abandons_a_frontend_that_never_drains) {
  start(1);
  auto fe = std::make_shared<test_frontend>(events);
  ASSERT_TRUE(add(fe));
  auto result = stop();
  advance(999ms);
  EXPECT_EQ(result->message(), "no answer yet");
  advance(1ms);
  run();
  EXPECT_EQ(result->code(), errc::internal);
  EXPECT_EQ(result->message(), "Exit timeout expired. Exiting immediately.");
  EXPECT_EQ(events[2], "frontend abort");
  EXPECT_EQ(events.back(), "stop answered");
  supervisor = nullptr;
}

TEST_F(supervisor_test, a_frontend_that_fails_to_start_is_reported_and_removed) {
  start();
  auto fe = std::make_shared<test_frontend>(events);
  fe->fail_start = true;
  auto st = add(fe);
  EXPECT_EQ(st.code(), errc::unavailable);
  auto result = stop();
  run();
  EXPECT_TRUE(*result) << "a failed frontend must not hold up the stop";
  supervisor = nullptr;
}

TEST_F(supervisor_test, no_frontend_can_join_a_stopping_server) {
  start();
  auto fe = std::make_shared<test_frontend>(events);
  ASSERT_TRUE(add(fe));
  auto result = stop();
  auto late = std::make_shared<test_frontend>(events);
  EXPECT_EQ(add(late).code(), errc::unavailable);
  fe->drained();
  run();
  EXPECT_TRUE(*result);
  supervisor = nullptr;
}

TEST_F(supervisor_test, a_core_actor_that_ends_while_running_marks_the_server_unhealthy) {
  for (bool repository : {true, false}) {
    SCOPED_TRACE(repository ? "repository" : "adapter pool");
    events.clear();
    start();
    flags->live.store(true);
    flags->accepting.store(true);
    flags->frontends_open.store(true);
    ASSERT_TRUE(flags->models_ready.load());
    caf::actor repo, pool;
    sys.spawn([&](caf::event_based_actor* self) {
      self->request(supervisor, caf::infinite, caf::get_atom_v)
        .then([&](repository_actor& r, adapter_pool_actor& p) {
          repo = caf::actor_cast<caf::actor>(r);
          pool = caf::actor_cast<caf::actor>(p);
        });
    });
    run();
    caf::anon_send_exit(repository ? repo : pool, caf::exit_reason::kill);
    run();
    EXPECT_FALSE(flags->live.load());
    EXPECT_FALSE(flags->models_ready.load());
    EXPECT_FALSE(flags->accepting.load());
    EXPECT_FALSE(flags->frontends_open.load());
    // The stop runs over what is left.
    auto result = stop();
    run();
    EXPECT_TRUE(*result) << result->to_string();
    supervisor = nullptr;
    caf::anon_send_exit(watcher, caf::exit_reason::kill);
    run();
    watcher = nullptr;
  }
}

} // namespace
} // namespace conch::actors
