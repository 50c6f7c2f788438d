// Starting and stopping a server through the public API: health, metadata,
// start failures, the supervisor handle and server_host.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <thread>

#include <caf/scoped_actor.hpp>
#include <gtest/gtest.h>

#include "conch/actors/server.hpp"
#include "conch/actors/server_host.hpp"
#include "conch/runtime/statistics/abandoned_threads.hpp"
#include "support/response_collector.hpp"
#include "support/server_fixture.hpp"
#include "support/temp_repository.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

using actors::control_mode;
using actors::index_entry;
using actors::model_state;
using runtime::errc;

const index_entry* find_entry(const std::vector<index_entry>& index, const std::string& name) {
  auto i = std::find_if(index.begin(), index.end(),
                        [&](const index_entry& e) { return e.name == name; });
  return i == index.end() ? nullptr : &*i;
}

class server_lifecycle : public server_fixture {};

TEST_F(server_lifecycle, starts_over_the_example_repository_and_serves_every_model) {
  auto srv = start(example_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_TRUE(srv->live());
  EXPECT_TRUE(srv->ready());
  for (const char* model : {"identity_fp32", "simple", "repeat_int32"})
    EXPECT_TRUE(srv->model_ready(model)) << model;
  EXPECT_FALSE(srv->model_ready("no_such_model"));
  auto r = infer_sync(*srv, fp32_request("identity_fp32", "r1"));
  ASSERT_TRUE(r.error.is_ok()) << r.error.to_string();
  EXPECT_EQ(r.id, "r1");
  EXPECT_EQ(r.model_version, 1);
}

TEST_F(server_lifecycle, stop_ends_health_and_a_second_stop_repeats_the_outcome) {
  auto srv = start(example_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto st = srv->stop();
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_FALSE(srv->live());
  EXPECT_FALSE(srv->ready());
  auto again = srv->stop();
  EXPECT_TRUE(again.is_ok()) << again.to_string();
}

TEST_F(server_lifecycle, infer_after_stop_answers_unavailable_once) {
  auto srv = start(example_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  ASSERT_TRUE(srv->stop().is_ok());
  response_collector c;
  auto handle = srv->submit(fp32_request("identity_fp32", "late"), c.callback());
  ASSERT_TRUE(c.wait_finals(1));
  EXPECT_TRUE(handle.completed());
  auto r = c.final_response();
  EXPECT_EQ(r.error.code(), errc::unavailable) << r.error.to_string();
  EXPECT_EQ(r.id, "late");
  EXPECT_EQ(c.entries().size(), 1u);
}

TEST_F(server_lifecycle, queries_after_stop_report_nothing_ready) {
  auto srv = start(example_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  ASSERT_TRUE(srv->stop().is_ok());
  // Queries after stop report errors instead of blocking, crashing or
  // describing models that no longer serve.
  EXPECT_FALSE(srv->model_ready("identity_fp32"));
  EXPECT_FALSE(srv->model_config("identity_fp32"));
  EXPECT_FALSE(srv->model_metadata("identity_fp32"));
  auto stats = srv->model_statistics();
  EXPECT_TRUE(!stats || stats->empty());
  EXPECT_FALSE(srv->repository_index());
}

TEST_F(server_lifecycle, an_empty_repository_list_is_invalid_argument) {
  actors::server_options o;
  auto srv = start(o);
  ASSERT_FALSE(srv);
  EXPECT_EQ(srv.error().code(), errc::invalid_argument) << srv.error().to_string();
}

TEST_F(server_lifecycle, a_missing_repository_path_fails_with_failed_to_stat) {
  temp_repository parent;
  auto missing = (parent.path() / "does_not_exist").string();
  auto srv = start(options_for(missing));
  ASSERT_FALSE(srv);
  EXPECT_EQ(srv.error().code(), errc::internal) << srv.error().to_string();
  EXPECT_NE(srv.error().message().find("failed to stat file " + missing), std::string::npos)
    << srv.error().message();
}

TEST_F(server_lifecycle, exit_on_error_fails_the_start_naming_the_bad_model) {
  auto o = options_for(data_repository("one_bad_model"));
  o.exit_on_error = true;
  auto srv = start(o);
  ASSERT_FALSE(srv);
  EXPECT_NE(srv.error().message().find("broken"), std::string::npos) << srv.error().to_string();
  EXPECT_EQ(srv.error().message().find("good_identity"), std::string::npos)
    << srv.error().to_string();
}

TEST_F(server_lifecycle, without_exit_on_error_the_bad_model_is_unavailable_and_others_serve) {
  auto o = options_for(data_repository("one_bad_model"));
  o.exit_on_error = false;
  auto srv = start(o);
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_TRUE(srv->model_ready("good_identity"));
  EXPECT_FALSE(srv->model_ready("broken"));
  auto index = srv->repository_index();
  ASSERT_TRUE(index) << index.error().to_string();
  const auto* broken = find_entry(*index, "broken");
  ASSERT_NE(broken, nullptr);
  EXPECT_EQ(broken->state, model_state::unavailable) << model_state_name(broken->state);
  EXPECT_NE(broken->reason.find("no_such_backend"), std::string::npos) << broken->reason;
  const auto* good = find_entry(*index, "good_identity");
  ASSERT_NE(good, nullptr);
  EXPECT_EQ(good->state, model_state::ready);
  auto r = infer_sync(*srv, fp32_request("good_identity", "g", 4));
  EXPECT_TRUE(r.error.is_ok()) << r.error.to_string();
  auto bad = infer_sync(*srv, fp32_request("broken", "b", 4));
  EXPECT_FALSE(bad.error.is_ok());
}

TEST_F(server_lifecycle, metadata_reports_the_server_id_version_and_extensions) {
  auto o = example_options();
  o.server_id = "conch_integration";
  auto srv = start(o);
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto md = srv->metadata();
  EXPECT_EQ(md.name, "conch_integration");
  EXPECT_FALSE(md.version.empty());
  for (const char* ext : {"model_repository", "statistics", "model_configuration"})
    EXPECT_NE(std::find(md.extensions.begin(), md.extensions.end(), ext), md.extensions.end())
      << ext;
  EXPECT_EQ(srv->options().server_id, "conch_integration");
}

TEST_F(server_lifecycle, the_handle_can_be_monitored_and_ends_after_stop) {
  auto srv = start(example_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto handle = srv->handle();
  ASSERT_TRUE(handle);
  caf::scoped_actor self{sys()};
  self->monitor(handle);
  ASSERT_TRUE(srv->stop().is_ok());
  bool down = false;
  self->receive([&](const caf::down_msg& msg) { down = msg.source == handle.address(); },
                caf::after(std::chrono::seconds{10}) >> [] {});
  EXPECT_TRUE(down);
}

TEST(server_host, starts_serves_and_shuts_its_actor_system_down) {
  auto o = example_options();
  auto host = actors::server_host::start(o);
  ASSERT_TRUE(host) << host.error().to_string();
  auto& srv = (*host)->server();
  EXPECT_TRUE(srv.ready());
  auto r = infer_sync(srv, fp32_request("identity_fp32", "h"));
  EXPECT_TRUE(r.error.is_ok()) << r.error.to_string();
  // Destroying the host stops the server and joins the actor system; a hang
  // here fails the test by its timeout.
  host->reset();
  SUCCEED();
}

TEST(server_host, reports_a_start_failure_and_cleans_up) {
  temp_repository parent;
  auto host = actors::server_host::start(options_for((parent.path() / "missing").string()));
  ASSERT_FALSE(host);
  EXPECT_EQ(host.error().code(), errc::internal) << host.error().to_string();
}

TEST(server_host, can_be_destroyed_on_another_thread_than_the_one_that_started_it) {
  // Bindings (Python's finalisers, for one) release a host on whatever thread
  // they run. The starting thread stays alive meanwhile, as a main thread does.
  auto host = actors::server_host::start(example_options());
  ASSERT_TRUE(host) << host.error().to_string();
  EXPECT_TRUE(infer_sync((*host)->server(), fp32_request("identity_fp32", "x")).error.is_ok());
  auto owned = std::move(*host);
  auto done = std::make_shared<std::promise<void>>();
  auto finished = done->get_future();
  std::thread other{[h = std::move(owned), done]() mutable {
    h.reset();
    done->set_value();
  }};
  if (finished.wait_for(std::chrono::seconds{15}) != std::future_status::ready) {
    std::fprintf(stderr, "FAILURE: ~server_host on another thread did not return within 15 s\n");
    std::fflush(stderr);
    std::_Exit(1);
  }
  other.join();
}

TEST(server_host, an_explicit_stop_before_destruction_is_fine) {
  auto host = actors::server_host::start(example_options());
  ASSERT_TRUE(host) << host.error().to_string();
  EXPECT_TRUE((*host)->server().stop().is_ok());
  EXPECT_TRUE((*host)->server().stop().is_ok());
}

} // namespace
} // namespace conch::tests

namespace conch::tests {
namespace {

// Every object of a server goes with it: a scheduler kept alive by a
// reference cycle (through the published model table, say) would keep the
// configuration it serves.
TEST_F(server_lifecycle, a_stopped_server_releases_everything_it_loaded) {
  temp_repository repo;
  repo.add_model("one", "name: \"one\"\nbackend: \"identity\"\nmax_batch_size: 0\n"
                        "input [ { name: \"I\" data_type: TYPE_FP32 dims: [ 1 ] } ]\n"
                        "output [ { name: \"O\" data_type: TYPE_FP32 dims: [ 1 ] } ]\n");
  std::weak_ptr<const inference::ModelConfig> config;
  auto abandoned_before = runtime::statistics::abandoned_threads::running();
  {
    // An actor system of its own, gone before the check: CAF frees the
    // objects of ended actors when it can, the last at the system's end.
    caf::actor_system_config cfg;
    actors::host_options host;
    host.scheduler_threads = 1;
    actors::configure_actor_system(cfg, host);
    caf::actor_system system{cfg};
    auto srv = actors::server::start(system, options_for(repo.str()));
    ASSERT_TRUE(srv) << srv.error().to_string();
    auto c = srv->model_config("one");
    ASSERT_TRUE(c);
    config = *c;
    EXPECT_TRUE(srv->stop());
  }
  // A repository scan still running when the stop came (one that had just
  // finished, or a configuration hook that hangs) is not waited for: what it
  // holds goes when its thread ends, which this waits for.
  EXPECT_TRUE(eventually(
    [&] { return runtime::statistics::abandoned_threads::running() == abandoned_before; }));
  EXPECT_TRUE(config.expired()) << "the configuration of a stopped server's model is still held";
}

} // namespace
} // namespace conch::tests
