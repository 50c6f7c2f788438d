// Fault injection through the public API: crashing adapters and model
// instances, and backends that fail to load or to create instances.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <gtest/gtest.h>

#include "conch/actors/adapters/adapter_pool.hpp"
#include "conch/runtime/backends/registry.hpp"
#include "support/gate_backend.hpp"
#include "support/metrics_text.hpp"
#include "support/model_configs.hpp"
#include "support/response_collector.hpp"
#include "support/server_fixture.hpp"
#include "support/temp_repository.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

using namespace std::chrono_literals;
using actors::index_entry;
using actors::model_state;
using runtime::errc;
namespace be = runtime::backends;

// -- test backends ---------------------------------------------------------------------

// Answers each job with its inputs renamed INPUTk -> OUTPUTk.
void echo(runtime::inference_job& job) {
  runtime::inference_response r;
  for (const auto& in : job.request().inputs) {
    auto out = in;
    out.name = "OUTPUT" + out.name.substr(5);
    r.outputs.push_back(std::move(out));
  }
  r.final = true;
  job.respond(std::move(r));
}

// An instance whose execute throws when a request carries the parameter
// "crash", and echoes otherwise.
class crashing_instance final : public be::backend_instance {
 public:
  void execute(be::batch& jobs) override {
    for (auto& job : jobs)
      if (runtime::find_parameter(job->request().parameters, "crash") != nullptr)
        throw std::runtime_error("boom: crash requested");
    for (auto& job : jobs)
      echo(*job);
  }
};

// Like crashing_instance, but a request with "crash" waits at a gate first,
// and after it threw the instance fails whatever it is still given: a
// request must never run on an instance whose backend threw. Records the
// ids it echoed, in order.
class gated_crashing_instance final : public be::backend_instance {
 public:
  gated_crashing_instance(std::shared_ptr<gate> g, std::shared_ptr<std::vector<std::string>> ran)
    : gate_(std::move(g)), ran_(std::move(ran)) {}

  void execute(be::batch& jobs) override {
    for (auto& job : jobs) {
      if (threw_)
        job->fail(runtime::internal_error("ran on an instance that crashed"));
      else if (runtime::find_parameter(job->request().parameters, "crash") != nullptr) {
        gate_->pass(jobs, std::chrono::seconds{10});
        threw_ = true;
        throw std::runtime_error("boom: crash requested");
      }
    }
    for (auto& job : jobs)
      if (!job->completed()) {
        ran_->push_back(job->request().id);
        echo(*job);
      }
  }

 private:
  std::shared_ptr<gate> gate_;
  std::shared_ptr<std::vector<std::string>> ran_;
  bool threw_ = false;
};

// An instance that returns without answering anything.
class silent_instance final : public be::backend_instance {
 public:
  void execute(be::batch&) override {}
};

// A model whose instances come from `make`, counting how many were created.
template <class Make>
class lambda_model final : public be::backend_model {
 public:
  lambda_model(Make make, std::shared_ptr<std::atomic<int>> created)
    : make_(std::move(make)), created_(std::move(created)) {}
  runtime::result<std::unique_ptr<be::backend_instance>>
  create_instance(const be::instance_context& ctx) override {
    ++*created_;
    return make_(ctx);
  }

 private:
  Make make_;
  std::shared_ptr<std::atomic<int>> created_;
};

// Registers backend `name` whose instances come from `make`; returns the
// count of instances created.
template <class Make>
std::shared_ptr<std::atomic<int>> register_backend(const std::string& name, Make make) {
  auto created = std::make_shared<std::atomic<int>>(0);
  be::registry::global().add(be::backend_entry{
    name,
    [make, created](const be::model_context&)
      -> runtime::result<std::unique_ptr<be::backend_model>> {
      return std::unique_ptr<be::backend_model>{
        std::make_unique<lambda_model<Make>>(make, created)};
    },
    nullptr});
  return created;
}

std::string model_on(const std::string& name, const std::string& backend) {
  return "name: \"" + name + "\"\nbackend: \"" + backend + "\"\nmax_batch_size: 0\n"
         "input [ { name: \"INPUT0\" data_type: TYPE_FP32 dims: [ 4 ] } ]\n"
         "output [ { name: \"OUTPUT0\" data_type: TYPE_FP32 dims: [ 4 ] } ]\n";
}

runtime::inference_request small_request(const std::string& model, const std::string& id) {
  return make_request(model, id,
                      {make_tensor("INPUT0", runtime::data_type::fp32, {4},
                                   std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f})});
}

std::optional<index_entry> entry_of(actors::server& srv, const std::string& name) {
  auto index = srv.repository_index();
  if (!index)
    return std::nullopt;
  for (const auto& e : *index)
    if (e.name == name)
      return e;
  return std::nullopt;
}

class fault_base : public server_fixture {
 public:
  actors::server serve(uint32_t restart_budget = 3, uint32_t adapters = 2) {
    auto o = options_for(repo_.str());
    o.exit_on_error = false;
    o.restart_budget = restart_budget;
    o.adapter_count = adapters;
    auto s = start(o);
    EXPECT_TRUE(s) << s.error().to_string();
    return s ? *s : throw std::runtime_error("server did not start");
  }

  // The supervisor's children: the repository and the adapter pool.
  std::pair<caf::actor, caf::actor> core(actors::server& srv) {
    caf::scoped_actor self{sys()};
    std::pair<caf::actor, caf::actor> out;
    self->request(srv.handle(), caf::infinite, caf::get_atom_v)
      .receive([&](actors::repository_actor& repository, actors::adapter_pool_actor& pool) {
                 out = {caf::actor_cast<caf::actor>(repository), caf::actor_cast<caf::actor>(pool)};
               },
               [&](caf::error& err) { ADD_FAILURE() << to_string(err); });
    return out;
  }

  // The server's adapters, as the adapter pool reports them.
  std::vector<caf::actor> adapters(actors::server& srv) {
    caf::scoped_actor self{sys()};
    actors::adapter_pool_actor pool;
    self->request(srv.handle(), caf::infinite, caf::get_atom_v)
      .receive([&](actors::repository_actor&, actors::adapter_pool_actor& p) { pool = p; },
               [&](caf::error& err) { ADD_FAILURE() << to_string(err); });
    std::vector<caf::actor> out;
    if (!pool)
      return out;
    self->request(pool, caf::infinite, caf::get_atom_v)
      .receive(
        [&](std::vector<actors::adapter_actor>& v) {
          for (auto& a : v)
            out.push_back(caf::actor_cast<caf::actor>(a));
        },
        [&](caf::error& err) { ADD_FAILURE() << to_string(err); });
    return out;
  }

  temp_repository repo_;
};

class fault : public fault_base {};

// -- adapters ----------------------------------------------------------------------------

// Ends one adapter with `reason` and checks that the pool replaced it and
// that 100 requests then all succeed.
void replace_and_serve(fault_base& f, caf::exit_reason reason) {
  f.repo_.add_model("m", identity_config("m", 8));
  auto srv = f.serve();
  auto before = f.adapters(srv);
  ASSERT_EQ(before.size(), 2u);
  auto victim = before[0];
  caf::anon_send_exit(victim, reason);
  ASSERT_TRUE(eventually([&] {
    auto now = f.adapters(srv);
    return now.size() == 2 && now[0] && now[0] != victim;
  })) << "the adapter was not replaced";
  EXPECT_EQ(f.adapters(srv)[1], before[1]);
  response_collector c;
  for (int i = 0; i < 100; ++i)
    srv.submit(fp32_request("m", std::to_string(i)), c.callback());
  ASSERT_TRUE(c.wait_finals(100));
  size_t failed = 0;
  for (const auto& e : c.entries())
    failed += e.response.error.is_ok() ? 0 : 1;
  EXPECT_EQ(failed, 0u) << c.entries()[0].response.error.to_string();
}

TEST_F(fault, a_crashed_adapter_is_replaced_and_requests_keep_succeeding) {
  replace_and_serve(*this, caf::exit_reason::unhandled_exception);
}

TEST_F(fault, a_killed_adapter_is_replaced_and_requests_keep_succeeding) {
  replace_and_serve(*this, caf::exit_reason::kill);
}

TEST_F(fault, requests_racing_an_adapter_crash_are_answered_exactly_once) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve();
  auto victim = adapters(srv)[1];
  response_collector c;
  for (int i = 0; i < 200; ++i) {
    if (i == 50)
      caf::anon_send_exit(victim, caf::exit_reason::kill);
    srv.submit(fp32_request("m", std::to_string(i)), c.callback());
  }
  ASSERT_TRUE(c.wait_finals(200));
  auto per_id = c.finals_per_id();
  EXPECT_EQ(per_id.size(), 200u);
  for (const auto& [id, n] : per_id)
    EXPECT_EQ(n, 1u) << id;
  for (const auto& e : c.entries()) {
    auto code = e.response.error.code();
    EXPECT_TRUE(code == errc::ok || code == errc::unavailable) << e.response.error.to_string();
  }
  // Once the pool has replaced the adapter, the server serves again.
  EXPECT_TRUE(eventually(
    [&] { return infer_sync(srv, fp32_request("m", "after")).error.is_ok(); }));
}

TEST_F(fault, past_the_adapter_budget_requests_are_refused_not_lost) {
  repo_.add_model("m", identity_config("m", 8));
  auto srv = serve(1, 1);
  for (int crash = 0; crash < 2; ++crash) {
    auto current = adapters(srv);
    ASSERT_EQ(current.size(), 1u);
    ASSERT_TRUE(current[0]);
    caf::anon_send_exit(current[0], caf::exit_reason::unhandled_exception);
    if (crash == 0) {
      ASSERT_TRUE(eventually([&] {
        auto now = adapters(srv);
        return now.size() == 1 && now[0] && now[0] != current[0];
      }));
    }
  }
  ASSERT_TRUE(eventually([&] {
    auto now = adapters(srv);
    return now.size() == 1 && !now[0];
  }));
  auto r = infer_sync(srv, fp32_request("m", "x"), 5s);
  EXPECT_EQ(r.error.code(), errc::unavailable) << r.error.to_string();
  EXPECT_TRUE(srv.stop().is_ok());
}

// -- the core: repository and adapter pool --------------------------------------------------

// Ends the repository (`repository`) or the adapter pool with `reason`, and
// checks that the server stops saying it is healthy, refuses requests at
// once rather than losing them, and still stops cleanly.
void kill_core(fault_base& f, bool repository, caf::exit_reason reason) {
  f.repo_.add_model("m", identity_config("m", 8));
  auto srv = f.serve();
  ASSERT_TRUE(srv.live());
  ASSERT_TRUE(srv.ready());
  auto [repo, pool] = f.core(srv);
  ASSERT_TRUE(repo && pool);
  caf::anon_send_exit(repository ? repo : pool, reason);
  ASSERT_TRUE(eventually([&] { return !srv.live(); })) << "health still says live";
  EXPECT_FALSE(srv.ready());
  auto r = infer_sync(srv, fp32_request("m", "after"), 5s);
  EXPECT_EQ(r.error.code(), errc::unavailable) << r.error.to_string();
  EXPECT_TRUE(srv.stop().is_ok());
}

TEST_F(fault, a_killed_repository_makes_the_server_not_live_and_not_ready) {
  kill_core(*this, true, caf::exit_reason::kill);
}

TEST_F(fault, a_crashed_repository_makes_the_server_not_live_and_not_ready) {
  kill_core(*this, true, caf::exit_reason::unhandled_exception);
}

TEST_F(fault, a_killed_adapter_pool_makes_the_server_not_live_and_not_ready) {
  kill_core(*this, false, caf::exit_reason::kill);
}

// -- instances ------------------------------------------------------------------------------

// Requests are queued, or submitted with placement::may_run_here, which runs them on the
// calling thread when the instance is idle (the direct lane): a crash there
// must end the same way.
class instance_fault : public fault_base, public ::testing::WithParamInterface<bool> {
 protected:
  runtime::inference_response submit(actors::server& srv, runtime::inference_request request) {
    if (!GetParam())
      return infer_sync(srv, std::move(request));
    response_collector c;
    srv.submit(std::move(request), c.callback(), conch::runtime::inprocess_may_run_here);
    c.wait_finals(1, 10s);
    return c.final_response();
  }
};

INSTANTIATE_TEST_SUITE_P(paths, instance_fault, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "inline" : "queued"; });

TEST_P(instance_fault, a_crashing_instance_fails_its_request_and_is_restarted) {
  auto backend = std::string{"crashy_once_"} + (GetParam() ? "inline" : "queued");
  auto created = register_backend(backend, [](const be::instance_context&) {
    return runtime::result<std::unique_ptr<be::backend_instance>>{
      std::unique_ptr<be::backend_instance>{std::make_unique<crashing_instance>()}};
  });
  repo_.add_model("crashy", model_on("crashy", backend));
  auto srv = serve(3);
  ASSERT_TRUE(srv.model_ready("crashy"));
  EXPECT_EQ(created->load(), 1);
  auto crashed = submit(srv, with_parameter(small_request("crashy", "c"), "crash", 1));
  EXPECT_EQ(crashed.error.code(), errc::internal) << crashed.error.to_string();
  EXPECT_NE(crashed.error.message().find("boom"), std::string::npos) << crashed.error.message();
  // The replacement starts on its own; a request sent meanwhile waits for it.
  auto fine = submit(srv, small_request("crashy", "fine"));
  ASSERT_TRUE(fine.error.is_ok()) << fine.error.to_string();
  EXPECT_EQ(values_of<float>(fine.outputs.at(0)), (std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f}));
  EXPECT_EQ(created->load(), 2);
  EXPECT_TRUE(srv.model_ready("crashy"));
}

TEST_P(instance_fault, an_instance_crashing_past_its_budget_makes_the_model_unavailable) {
  auto backend = std::string{"crashy_often_"} + (GetParam() ? "inline" : "queued");
  register_backend(backend, [](const be::instance_context&) {
    return runtime::result<std::unique_ptr<be::backend_instance>>{
      std::unique_ptr<be::backend_instance>{std::make_unique<crashing_instance>()}};
  });
  repo_.add_model("crashy", model_on("crashy", backend));
  repo_.add_model("bystander", identity_config("bystander", 8));
  constexpr uint32_t budget = 2;
  auto srv = serve(budget);
  for (uint32_t i = 0; i < budget; ++i) {
    SCOPED_TRACE(i);
    auto r = submit(srv, with_parameter(small_request("crashy", "c"), "crash", 1));
    EXPECT_EQ(r.error.code(), errc::internal) << r.error.to_string();
    EXPECT_TRUE(submit(srv, small_request("crashy", "ok")).error.is_ok());
  }
  auto last = submit(srv, with_parameter(small_request("crashy", "c"), "crash", 1));
  EXPECT_EQ(last.error.code(), errc::internal) << last.error.to_string();
  ASSERT_TRUE(eventually([&] { return !srv.model_ready("crashy"); }));
  auto entry = entry_of(srv, "crashy");
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->state, model_state::unavailable) << model_state_name(entry->state);
  EXPECT_FALSE(entry->reason.empty());
  auto after = submit(srv, small_request("crashy", "after"));
  EXPECT_FALSE(after.error.is_ok());
  // Other models are not affected.
  EXPECT_TRUE(submit(srv, fp32_request("bystander", "b")).error.is_ok());
}

TEST_F(fault, requests_handed_to_an_instance_behind_a_crash_run_on_its_replacement) {
  // The one instance of a blocking backend is handed its next request while
  // one runs (model_scheduler's prefetch); when the running one crashes the
  // instance, that next request never ran and must not fail with it.
  auto g = std::make_shared<gate>();
  auto ran = std::make_shared<std::vector<std::string>>();
  auto created = register_backend("crashy_gated", [g, ran](const be::instance_context&) {
    return runtime::result<std::unique_ptr<be::backend_instance>>{
      std::unique_ptr<be::backend_instance>{std::make_unique<gated_crashing_instance>(g, ran)}};
  });
  repo_.add_model("crashy", model_on("crashy", "crashy_gated"));
  auto srv = serve(3);
  auto pending = [&] {
    return metric_value(srv.metrics_text(), "nv_inference_pending_request_count",
                        "model=\"crashy\",version=\"1\"")
      .value_or(-1);
  };
  response_collector c;
  srv.submit(with_parameter(small_request("crashy", "c"), "crash", 1), c.callback());
  ASSERT_TRUE(g->wait_entered(1));
  srv.submit(small_request("crashy", "b1"), c.callback());
  ASSERT_TRUE(eventually([&] { return pending() == 1; }));
  srv.submit(small_request("crashy", "b2"), c.callback());
  ASSERT_TRUE(eventually([&] { return pending() == 2; }));
  g->open();
  ASSERT_TRUE(c.wait_finals(3));
  auto crashed = c.final_of("c");
  EXPECT_EQ(crashed.error.code(), errc::internal) << crashed.error.to_string();
  for (const char* id : {"b1", "b2"}) {
    auto r = c.final_of(id);
    ASSERT_TRUE(r.error.is_ok()) << id << ": " << r.error.to_string();
    EXPECT_EQ(values_of<float>(r.outputs.at(0)), (std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f}));
    EXPECT_EQ(c.of(id).size(), 1u);
  }
  // Each ran once, on the replacement, in the order they came.
  EXPECT_EQ(*ran, (std::vector<std::string>{"b1", "b2"}));
  EXPECT_EQ(created->load(), 2);
  EXPECT_TRUE(eventually([&] { return pending() == 0; }));
}

TEST_F(fault, the_pending_count_of_a_busy_single_instance_model_returns_to_zero) {
  // Several clients keep the one instance of a blocking backend busy, so the
  // scheduler hands it batches while it runs one, and some arrive just as it
  // finished: every request still leaves the pending count exactly once.
  register_backend("echo_blocking", [](const be::instance_context&) {
    return runtime::result<std::unique_ptr<be::backend_instance>>{
      std::unique_ptr<be::backend_instance>{std::make_unique<crashing_instance>()}};
  });
  repo_.add_model("busy", model_on("busy", "echo_blocking"));
  auto srv = serve();
  std::atomic<int> failed{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 6; ++t)
    clients.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i)
        if (!infer_sync(srv, small_request("busy", std::to_string(t) + "-" + std::to_string(i)))
               .error.is_ok())
          ++failed;
    });
  for (auto& c : clients)
    c.join();
  EXPECT_EQ(failed.load(), 0);
  auto pending = [&] {
    return metric_value(srv.metrics_text(), "nv_inference_pending_request_count",
                        "model=\"busy\",version=\"1\"")
      .value_or(-1);
  };
  EXPECT_TRUE(eventually([&] { return pending() == 0; })) << pending();
}

TEST_P(instance_fault, an_instance_that_does_not_answer_fails_the_request) {
  auto backend = std::string{"silent_"} + (GetParam() ? "inline" : "queued");
  register_backend(backend, [](const be::instance_context&) {
    return runtime::result<std::unique_ptr<be::backend_instance>>{
      std::unique_ptr<be::backend_instance>{std::make_unique<silent_instance>()}};
  });
  repo_.add_model("quiet", model_on("quiet", backend));
  auto srv = serve();
  auto r = submit(srv, small_request("quiet", "q"));
  EXPECT_EQ(r.error.code(), errc::internal) << r.error.to_string();
  EXPECT_NE(r.error.message().find("without answering"), std::string::npos) << r.error.message();
}

// -- loading ---------------------------------------------------------------------------------

TEST_F(fault, a_failing_create_instance_makes_the_model_unavailable_with_its_reason) {
  register_backend("no_instances", [](const be::instance_context&) {
    return runtime::result<std::unique_ptr<be::backend_instance>>{
      runtime::internal_error("no accelerator for this instance")};
  });
  repo_.add_model("cannot", model_on("cannot", "no_instances"));
  repo_.add_model("can", identity_config("can", 8));
  auto srv = serve();
  EXPECT_FALSE(srv.model_ready("cannot"));
  EXPECT_TRUE(srv.model_ready("can"));
  auto entry = entry_of(srv, "cannot");
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->state, model_state::unavailable) << model_state_name(entry->state);
  EXPECT_NE(entry->reason.find("no accelerator for this instance"), std::string::npos)
    << entry->reason;
}

TEST_F(fault, a_throwing_create_instance_makes_the_model_unavailable) {
  register_backend("throwing_instances",
                   [](const be::instance_context&)
                     -> runtime::result<std::unique_ptr<be::backend_instance>> {
                     throw std::runtime_error("instance constructor exploded");
                   });
  repo_.add_model("cannot", model_on("cannot", "throwing_instances"));
  auto srv = serve();
  auto entry = entry_of(srv, "cannot");
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->state, model_state::unavailable) << model_state_name(entry->state);
  EXPECT_NE(entry->reason.find("instance constructor exploded"), std::string::npos)
    << entry->reason;
}

TEST_F(fault, a_throwing_factory_makes_the_model_unavailable) {
  be::registry::global().add(be::backend_entry{
    "throwing_factory",
    [](const be::model_context&) -> runtime::result<std::unique_ptr<be::backend_model>> {
      throw std::runtime_error("factory exploded");
    },
    nullptr});
  repo_.add_model("cannot", model_on("cannot", "throwing_factory"));
  repo_.add_model("can", identity_config("can", 8));
  auto srv = serve();
  EXPECT_TRUE(srv.model_ready("can"));
  auto entry = entry_of(srv, "cannot");
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->state, model_state::unavailable) << model_state_name(entry->state);
  EXPECT_NE(entry->reason.find("factory exploded"), std::string::npos) << entry->reason;
  EXPECT_FALSE(infer_sync(srv, small_request("cannot", "x")).error.is_ok());
}

TEST_F(fault, a_factory_error_makes_the_model_unavailable_with_its_reason) {
  be::registry::global().add(be::backend_entry{
    "refusing_factory",
    [](const be::model_context&) -> runtime::result<std::unique_ptr<be::backend_model>> {
      return runtime::invalid_argument("weights are missing");
    },
    nullptr});
  repo_.add_model("cannot", model_on("cannot", "refusing_factory"));
  auto srv = serve();
  auto entry = entry_of(srv, "cannot");
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->state, model_state::unavailable) << model_state_name(entry->state);
  EXPECT_NE(entry->reason.find("weights are missing"), std::string::npos) << entry->reason;
}

TEST_F(fault, exit_on_error_reports_a_throwing_factory_as_a_start_failure) {
  be::registry::global().add(be::backend_entry{
    "throwing_factory_2",
    [](const be::model_context&) -> runtime::result<std::unique_ptr<be::backend_model>> {
      throw std::runtime_error("factory exploded");
    },
    nullptr});
  repo_.add_model("cannot", model_on("cannot", "throwing_factory_2"));
  auto o = options_for(repo_.str());
  o.exit_on_error = true;
  auto s = start(o);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("cannot"), std::string::npos) << s.error().to_string();
  EXPECT_NE(s.error().message().find("factory exploded"), std::string::npos)
    << s.error().to_string();
}

} // namespace
} // namespace conch::tests
