// The model repository through the public API: control modes, load, unload,
// overrides, version policies, polling and registered repositories.

#include <algorithm>
#include <filesystem>
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

namespace fs = std::filesystem;
using actors::control_mode;
using actors::index_entry;
using actors::load_parameters;
using actors::model_state;
using runtime::errc;

std::vector<index_entry> entries_of(const std::vector<index_entry>& index,
                                    const std::string& name) {
  std::vector<index_entry> out;
  for (const auto& e : index)
    if (e.name == name)
      out.push_back(e);
  return out;
}

// The versions of `name` that are READY, from the index.
std::vector<std::string> ready_versions(actors::server& srv, const std::string& name) {
  std::vector<std::string> out;
  auto index = srv.repository_index(true);
  if (!index)
    return out;
  for (const auto& e : *index)
    if (e.name == name && e.state == model_state::ready)
      out.push_back(e.version);
  return out;
}

// The version that served a request for (`name`, `version`); -2 on error.
int64_t served_version(actors::server& srv, const std::string& name, int64_t version) {
  auto request = fp32_request(name, "v");
  request.model_version = version;
  auto r = infer_sync(srv, std::move(request));
  return r.error.is_ok() ? r.model_version : -2;
}

std::string identity_json(const std::string& name, int max_batch_size,
                          const std::string& extra = "") {
  return R"({"name":")" + name + R"(","backend":"identity","max_batch_size":)"
         + std::to_string(max_batch_size)
         + R"(,"input":[{"name":"INPUT0","data_type":"TYPE_FP32","dims":[16]}],)"
           R"("output":[{"name":"OUTPUT0","data_type":"TYPE_FP32","dims":[16]}])"
         + extra + "}";
}

class repository : public server_fixture {
 protected:
  repository() {
    repo_.add_model("a", identity_config("a"));
    repo_.add_model("b", identity_config("b"));
    repo_.add_model("c", identity_config("c"));
  }

  actors::server_options explicit_options(std::vector<std::string> startup = {}) const {
    auto o = options_for(repo_.str(), control_mode::explicit_);
    o.startup_models = std::move(startup);
    return o;
  }

  temp_repository repo_;
};

// -- EXPLICIT mode ---------------------------------------------------------------

TEST_F(repository, explicit_mode_loads_only_the_startup_models) {
  auto srv = start(explicit_options({"a"}));
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_TRUE(srv->model_ready("a"));
  EXPECT_FALSE(srv->model_ready("b"));
  EXPECT_FALSE(srv->model_ready("c"));
  auto index = srv->repository_index();
  ASSERT_TRUE(index) << index.error().to_string();
  ASSERT_EQ(index->size(), 3u);
  EXPECT_EQ((*index)[0].name, "a");
  EXPECT_EQ((*index)[0].version, "1");
  EXPECT_EQ((*index)[0].state, model_state::ready);
  for (size_t i : {1, 2}) {
    EXPECT_EQ((*index)[i].name, i == 1 ? "b" : "c");
    EXPECT_EQ((*index)[i].version, "");
    EXPECT_EQ((*index)[i].state, model_state::unknown);
    EXPECT_EQ((*index)[i].reason, "");
  }
  auto ready = srv->repository_index(true);
  ASSERT_TRUE(ready);
  ASSERT_EQ(ready->size(), 1u);
  EXPECT_EQ((*ready)[0].name, "a");
}

TEST_F(repository, explicit_mode_star_loads_every_model) {
  auto srv = start(explicit_options({"*"}));
  ASSERT_TRUE(srv) << srv.error().to_string();
  for (const char* m : {"a", "b", "c"})
    EXPECT_TRUE(srv->model_ready(m)) << m;
}

TEST_F(repository, explicit_mode_without_startup_models_loads_nothing) {
  auto srv = start(explicit_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_TRUE(srv->ready());
  auto ready = srv->repository_index(true);
  ASSERT_TRUE(ready);
  EXPECT_TRUE(ready->empty());
  auto r = infer_sync(*srv, fp32_request("a", "x"));
  EXPECT_EQ(r.error.code(), errc::not_found) << r.error.to_string();
}

TEST_F(repository, load_unload_and_load_again) {
  auto srv = start(explicit_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto st = srv->load("b");
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_TRUE(srv->model_ready("b"));
  EXPECT_TRUE(infer_sync(*srv, fp32_request("b", "1")).error.is_ok());

  st = srv->unload("b");
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_FALSE(srv->model_ready("b"));
  auto index = srv->repository_index();
  ASSERT_TRUE(index);
  auto b = entries_of(*index, "b");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].version, "1");
  EXPECT_EQ(b[0].state, model_state::unavailable);
  EXPECT_EQ(b[0].reason, "unloaded");
  EXPECT_FALSE(infer_sync(*srv, fp32_request("b", "2")).error.is_ok());

  st = srv->load("b");
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_TRUE(srv->model_ready("b"));
  EXPECT_TRUE(infer_sync(*srv, fp32_request("b", "3")).error.is_ok());
}

TEST_F(repository, loading_a_loaded_model_reloads_its_changed_configuration) {
  auto srv = start(explicit_options({"a"}));
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto before = srv->model_config("a");
  ASSERT_TRUE(before);
  EXPECT_EQ((*before)->max_batch_size(), 8);
  repo_.write("a/config.pbtxt", identity_config("a", 32));
  auto st = srv->load("a");
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  auto after = srv->model_config("a");
  ASSERT_TRUE(after);
  EXPECT_EQ((*after)->max_batch_size(), 32);
  EXPECT_TRUE(infer_sync(*srv, fp32_request("a", "x")).error.is_ok());
}

TEST_F(repository, a_json_config_override_replaces_the_file) {
  auto srv = start(explicit_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  load_parameters p;
  p.config_json = identity_json("b", 2);
  auto st = srv->load("b", p);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  auto config = srv->model_config("b");
  ASSERT_TRUE(config);
  EXPECT_EQ((*config)->max_batch_size(), 2);
  // The override's limit is enforced: a batch of 4 is too large now.
  auto r = infer_sync(*srv, make_request("b", "big",
                                         {make_tensor("INPUT0", runtime::data_type::fp32,
                                                      {4, 16}, std::vector<float>(64, 1.0f))}));
  EXPECT_EQ(r.error.code(), errc::invalid_argument) << r.error.to_string();
}

TEST_F(repository, a_json_override_can_add_a_version_policy) {
  repo_.add_model("multi", identity_config("multi"), {1, 2, 3});
  auto srv = start(explicit_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  ASSERT_TRUE(srv->load("multi").is_ok());
  EXPECT_EQ(ready_versions(*srv, "multi"), (std::vector<std::string>{"3"}));
  load_parameters p;
  p.config_json = identity_json("multi", 8, R"(,"version_policy":{"all":{}})");
  auto st = srv->load("multi", p);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(ready_versions(*srv, "multi"), (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(served_version(*srv, "multi", 1), 1);
}

TEST_F(repository, an_invalid_json_override_fails_and_names_the_override) {
  auto srv = start(explicit_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  load_parameters p;
  p.config_json = "{ not json";
  auto st = srv->load("b", p);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("override"), std::string::npos) << st.to_string();
  EXPECT_FALSE(srv->model_ready("b"));
}

TEST_F(repository, file_overrides_create_a_model_that_exists_only_in_the_request) {
  auto srv = start(explicit_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  load_parameters p;
  p.config_json = identity_json("ghost", 4);
  p.files = {{"file:1/weights.bin", std::string("\x01\x02\x03", 3)},
             {"file:2/weights.bin", "v2"}};
  auto st = srv->load("ghost", p);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_FALSE(fs::exists(repo_.path() / "ghost"));
  EXPECT_TRUE(srv->model_ready("ghost"));
  EXPECT_EQ(served_version(*srv, "ghost", -1), 2);
  auto index = srv->repository_index(true);
  ASSERT_TRUE(index);
  EXPECT_EQ(entries_of(*index, "ghost").size(), 1u);
  ASSERT_TRUE(srv->unload("ghost").is_ok());
  EXPECT_FALSE(srv->model_ready("ghost"));
}

TEST_F(repository, file_overrides_without_a_config_are_rejected) {
  auto srv = start(explicit_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  load_parameters p;
  p.files = {{"file:1/weights.bin", "x"}};
  auto st = srv->load("ghost", p);
  EXPECT_EQ(st.code(), errc::invalid_argument) << st.to_string();
  EXPECT_FALSE(srv->model_ready("ghost"));
}

TEST_F(repository, unload_accepts_the_unload_dependents_flag) {
  auto srv = start(explicit_options({"a"}));
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto st = srv->unload("a", true);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_FALSE(srv->model_ready("a"));
}

TEST_F(repository, loading_an_unknown_model_fails_and_names_it) {
  auto srv = start(explicit_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto st = srv->load("no_such_model");
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("no_such_model"), std::string::npos) << st.to_string();
  EXPECT_FALSE(srv->model_ready("no_such_model"));
}

TEST_F(repository, unloading_a_model_never_loaded_fails) {
  auto srv = start(explicit_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto st = srv->unload("b");
  EXPECT_FALSE(st.is_ok()) << st.to_string();
}

TEST_F(repository, a_failed_load_of_a_name_with_no_model_leaves_no_trace) {
  auto srv = start(explicit_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto st = srv->load("nonexistent");
  EXPECT_EQ(st.code(), errc::internal) << st.to_string();
  // Readiness counts only models that exist: the bogus name is not one.
  ASSERT_TRUE(srv->load("a").is_ok());
  EXPECT_TRUE(srv->ready());
  auto index = srv->repository_index();
  ASSERT_TRUE(index) << index.error().to_string();
  EXPECT_TRUE(entries_of(*index, "nonexistent").empty());
  EXPECT_EQ(entries_of(*index, "b").size(), 1u);
  // Nor does an override whose files cannot be written name a model.
  load_parameters p;
  p.config_json = identity_json("ghost", 4);
  p.files = {{"file:../escape", "x"}};
  EXPECT_FALSE(srv->load("ghost", p).is_ok());
  ASSERT_TRUE(srv->load("b").is_ok());
  EXPECT_TRUE(srv->ready());
  EXPECT_EQ(srv->unload("nonexistent").code(), errc::invalid_argument);
}

TEST_F(repository, unloading_a_model_that_failed_to_load_makes_the_server_ready_again) {
  auto srv = start(explicit_options({"a"}));
  ASSERT_TRUE(srv) << srv.error().to_string();
  load_parameters p;
  p.config_json = "{ not json";
  EXPECT_FALSE(srv->load("b", p).is_ok());
  // A model that exists and failed counts against readiness (as in Triton).
  EXPECT_FALSE(srv->ready());
  auto index = srv->repository_index();
  ASSERT_TRUE(index);
  auto b = entries_of(*index, "b");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].state, model_state::unavailable);
  ASSERT_TRUE(srv->unload("b").is_ok());
  EXPECT_TRUE(srv->ready());
}

TEST_F(repository, an_instance_count_past_the_limit_is_refused_and_the_server_serves_on) {
  auto srv = start(explicit_options({"a"}));
  ASSERT_TRUE(srv) << srv.error().to_string();
  load_parameters p;
  p.config_json =
    identity_json("b", 4, R"(,"instance_group":[{"kind":"KIND_CPU","count":2000000000}])");
  auto st = srv->load("b", p);
  EXPECT_EQ(st.code(), errc::invalid_argument) << st.to_string();
  EXPECT_NE(st.message().find("instance_group[0].count"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("1024"), std::string::npos) << st.message();
  // The repository still answers, loads and serves.
  EXPECT_TRUE(srv->live());
  ASSERT_TRUE(srv->load("c").is_ok());
  EXPECT_TRUE(srv->model_ready("c"));
  EXPECT_EQ(served_version(*srv, "c", -1), 1);
  EXPECT_EQ(served_version(*srv, "a", -1), 1);
  ASSERT_TRUE(srv->repository_index());
  EXPECT_TRUE(srv->stop().is_ok());
}

TEST_F(repository, load_and_unload_are_unsupported_outside_explicit_mode) {
  for (auto mode : {control_mode::none, control_mode::poll}) {
    SCOPED_TRACE(static_cast<int>(mode));
    auto srv = start(options_for(repo_.str(), mode));
    ASSERT_TRUE(srv) << srv.error().to_string();
    EXPECT_EQ(srv->load("a").code(), errc::unsupported);
    EXPECT_EQ(srv->unload("a").code(), errc::unsupported);
    EXPECT_TRUE(srv->model_ready("a"));
    ASSERT_TRUE(srv->stop().is_ok());
  }
}

TEST_F(repository, a_failed_reload_leaves_the_serving_version_in_place) {
  auto srv = start(explicit_options({"a"}));
  ASSERT_TRUE(srv) << srv.error().to_string();
  repo_.write("a/config.pbtxt", "this is { not a config");
  auto st = srv->load("a");
  EXPECT_FALSE(st.is_ok());
  EXPECT_TRUE(srv->model_ready("a"));
  EXPECT_TRUE(infer_sync(*srv, fp32_request("a", "still")).error.is_ok());
}

TEST_F(repository, unload_lets_the_requests_in_flight_finish) {
  repo_.add_model("slow", delayed_identity_config("slow", 50, 1));
  auto srv = start(explicit_options({"slow"}));
  ASSERT_TRUE(srv) << srv.error().to_string();
  response_collector c;
  for (int i = 0; i < 5; ++i)
    srv->submit(fp32_request("slow", std::to_string(i)), c.callback());
  // Unload once every request reached the model: one runs, the rest queue.
  ASSERT_TRUE(eventually([&] {
    auto pending = metric_value(srv->metrics_text(), "nv_inference_pending_request_count",
                                "model=\"slow\"");
    return pending && *pending == 4.0 - static_cast<double>(c.finals());
  }));
  auto st = srv->unload("slow");
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  ASSERT_TRUE(c.wait_finals(5));
  for (const auto& e : c.entries())
    EXPECT_TRUE(e.response.error.is_ok()) << e.response.id << ": " << e.response.error.to_string();
  EXPECT_FALSE(srv->model_ready("slow"));
}

TEST_F(repository, concurrent_loads_of_one_model_both_succeed) {
  auto srv = start(explicit_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  runtime::status first;
  std::thread other{[&] { first = srv->load("b"); }};
  auto second = srv->load("b");
  other.join();
  EXPECT_TRUE(first.is_ok()) << first.to_string();
  EXPECT_TRUE(second.is_ok()) << second.to_string();
  EXPECT_EQ(ready_versions(*srv, "b"), (std::vector<std::string>{"1"}));
}

// -- versions -------------------------------------------------------------------------

TEST_F(repository, latest_two_serves_the_two_highest_versions) {
  temp_repository r;
  r.add_model("m", identity_config("m", 8, "version_policy { latest { num_versions: 2 } }"),
              {1, 2, 3});
  auto srv = start(options_for(r.str()));
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_EQ(ready_versions(*srv, "m"), (std::vector<std::string>{"2", "3"}));
  EXPECT_FALSE(srv->model_ready("m", 1));
  EXPECT_TRUE(srv->model_ready("m", 2));
  EXPECT_EQ(served_version(*srv, "m", -1), 3);
  EXPECT_EQ(served_version(*srv, "m", 2), 2);
  EXPECT_EQ(served_version(*srv, "m", 1), -2);
  auto request = fp32_request("m", "v1");
  request.model_version = 1;
  auto resp = infer_sync(*srv, std::move(request));
  EXPECT_EQ(resp.error.code(), errc::not_found) << resp.error.to_string();
}

TEST_F(repository, the_default_policy_serves_only_the_latest_version) {
  temp_repository r;
  r.add_model("m", identity_config("m"), {1, 7, 3});
  auto srv = start(options_for(r.str()));
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_EQ(ready_versions(*srv, "m"), (std::vector<std::string>{"7"}));
  EXPECT_EQ(served_version(*srv, "m", -1), 7);
}

TEST_F(repository, all_serves_every_version) {
  temp_repository r;
  r.add_model("m", identity_config("m", 8, "version_policy { all { } }"), {1, 2, 3});
  auto srv = start(options_for(r.str()));
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_EQ(ready_versions(*srv, "m"), (std::vector<std::string>{"1", "2", "3"}));
  for (int64_t v : {1, 2, 3})
    EXPECT_EQ(served_version(*srv, "m", v), v);
  EXPECT_EQ(served_version(*srv, "m", -1), 3);
  auto md = srv->model_metadata("m");
  ASSERT_TRUE(md) << md.error().to_string();
  EXPECT_EQ(md->versions, (std::vector<std::string>{"1", "2", "3"}));
}

TEST_F(repository, specific_serves_the_listed_versions) {
  temp_repository r;
  r.add_model("m", identity_config("m", 8, "version_policy { specific { versions: [ 1, 3 ] } }"),
              {1, 2, 3});
  auto srv = start(options_for(r.str()));
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_EQ(ready_versions(*srv, "m"), (std::vector<std::string>{"1", "3"}));
  EXPECT_EQ(served_version(*srv, "m", 1), 1);
  EXPECT_EQ(served_version(*srv, "m", 2), -2);
  EXPECT_EQ(served_version(*srv, "m", -1), 3);
}

TEST_F(repository, non_numeric_version_directories_are_ignored) {
  temp_repository r;
  r.add_model("m", identity_config("m", 8, "version_policy { all { } }"), {2});
  for (const char* dir : {"abc", "01", "-1", "3x", ".5"})
    r.make_dir(fs::path("m") / dir);
  r.write("m/9", "a file, not a version directory");
  auto srv = start(options_for(r.str()));
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_EQ(ready_versions(*srv, "m"), (std::vector<std::string>{"2"}));
  auto md = srv->model_metadata("m");
  ASSERT_TRUE(md) << md.error().to_string();
  EXPECT_EQ(md->versions, (std::vector<std::string>{"2"}));
}

TEST_F(repository, a_model_without_versions_fails_to_load) {
  temp_repository r;
  r.add_model("empty", identity_config("empty"), {});
  r.add_model("fine", identity_config("fine"));
  auto o = options_for(r.str());
  o.exit_on_error = false;
  auto srv = start(o);
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_FALSE(srv->model_ready("empty"));
  EXPECT_TRUE(srv->model_ready("fine"));
}

// -- repository shapes ----------------------------------------------------------------

TEST_F(repository, an_empty_repository_starts_with_an_empty_index) {
  temp_repository r;
  auto srv = start(options_for(r.str()));
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_TRUE(srv->ready());
  auto index = srv->repository_index();
  ASSERT_TRUE(index) << index.error().to_string();
  EXPECT_TRUE(index->empty());
  auto stats = srv->model_statistics();
  ASSERT_TRUE(stats) << stats.error().to_string();
  EXPECT_TRUE(stats->empty());
}

TEST_F(repository, a_symlinked_model_directory_is_a_model) {
  temp_repository elsewhere;
  elsewhere.add_model("real_dir", identity_config(""));
  temp_repository r;
  fs::create_directory_symlink(elsewhere.path() / "real_dir", r.path() / "linked");
  auto srv = start(options_for(r.str()));
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_TRUE(srv->model_ready("linked"));
  auto resp = infer_sync(*srv, fp32_request("linked", "l"));
  EXPECT_TRUE(resp.error.is_ok()) << resp.error.to_string();
  EXPECT_EQ(resp.model_name, "linked");
}

TEST_F(repository, hidden_directories_and_files_are_not_models) {
  temp_repository r;
  r.add_model("visible", identity_config("visible"));
  r.add_model(".hidden", identity_config(".hidden"));
  r.write("README.txt", "not a model");
  auto srv = start(options_for(r.str()));
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto index = srv->repository_index();
  ASSERT_TRUE(index);
  ASSERT_EQ(index->size(), 1u);
  EXPECT_EQ((*index)[0].name, "visible");
}

TEST_F(repository, two_repositories_are_served_together) {
  temp_repository other;
  other.add_model("d", identity_config("d"));
  auto o = options_for(repo_.str());
  o.model_repository.push_back(other.str());
  auto srv = start(o);
  ASSERT_TRUE(srv) << srv.error().to_string();
  for (const char* m : {"a", "b", "c", "d"})
    EXPECT_TRUE(srv->model_ready(m)) << m;
}

// -- POLL mode ----------------------------------------------------------------------

TEST_F(repository, poll_picks_up_a_new_model) {
  auto srv = start(options_for(repo_.str(), control_mode::poll));
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_FALSE(srv->model_ready("d"));
  repo_.add_model("d", identity_config("d"));
  auto st = srv->poll_repository();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_TRUE(srv->model_ready("d"));
  EXPECT_TRUE(infer_sync(*srv, fp32_request("d", "x")).error.is_ok());
}

TEST_F(repository, poll_reloads_a_changed_configuration) {
  auto srv = start(options_for(repo_.str(), control_mode::poll));
  ASSERT_TRUE(srv) << srv.error().to_string();
  repo_.write("a/config.pbtxt", identity_config("a", 16));
  auto st = srv->poll_repository();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  auto config = srv->model_config("a");
  ASSERT_TRUE(config);
  EXPECT_EQ((*config)->max_batch_size(), 16);
  // Unchanged models keep their configuration.
  auto b = srv->model_config("b");
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)->max_batch_size(), 8);
}

TEST_F(repository, poll_unloads_a_model_whose_directory_was_removed) {
  auto srv = start(options_for(repo_.str(), control_mode::poll));
  ASSERT_TRUE(srv) << srv.error().to_string();
  ASSERT_TRUE(srv->model_ready("c"));
  repo_.remove("c");
  auto st = srv->poll_repository();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_FALSE(srv->model_ready("c"));
  auto r = infer_sync(*srv, fp32_request("c", "x"));
  EXPECT_FALSE(r.error.is_ok());
  EXPECT_TRUE(srv->model_ready("a"));
  // A second poll with nothing changed is harmless.
  EXPECT_TRUE(srv->poll_repository().is_ok());
  EXPECT_TRUE(srv->model_ready("a"));
}

TEST_F(repository, poll_loads_a_model_once_its_configuration_is_fixed) {
  repo_.add_model("late", "this is { not a config");
  auto o = options_for(repo_.str(), control_mode::poll);
  o.exit_on_error = false;
  auto srv = start(o);
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_FALSE(srv->model_ready("late"));
  repo_.write("late/config.pbtxt", identity_config("late"));
  (void) srv->poll_repository();
  EXPECT_TRUE(srv->model_ready("late"));
}

TEST_F(repository, poll_keeps_serving_a_model_whose_new_configuration_is_broken) {
  auto srv = start(options_for(repo_.str(), control_mode::poll));
  ASSERT_TRUE(srv) << srv.error().to_string();
  repo_.write("a/config.pbtxt", "max_batch_size: {");
  auto st = srv->poll_repository();
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("a"), std::string::npos) << st.to_string();
  EXPECT_TRUE(srv->model_ready("a"));
  EXPECT_TRUE(infer_sync(*srv, fp32_request("a", "x")).error.is_ok());
}

TEST_F(repository, poll_is_unsupported_outside_poll_mode) {
  for (auto mode : {control_mode::none, control_mode::explicit_}) {
    SCOPED_TRACE(static_cast<int>(mode));
    auto srv = start(options_for(repo_.str(), mode));
    ASSERT_TRUE(srv) << srv.error().to_string();
    EXPECT_EQ(srv->poll_repository().code(), errc::unsupported);
    ASSERT_TRUE(srv->stop().is_ok());
  }
}

// -- registered repositories ---------------------------------------------------------

TEST_F(repository, a_registered_repository_serves_models_by_their_mapped_names) {
  temp_repository other;
  other.add_model("dir_d", identity_config("dir_d"));
  other.add_model("e", identity_config("e"));
  auto srv = start(explicit_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto st = srv->register_model_repository(other.str(), {{"dir_d", "d"}});
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  auto index = srv->repository_index();
  ASSERT_TRUE(index);
  ASSERT_EQ(entries_of(*index, "d").size(), 1u);
  EXPECT_EQ(entries_of(*index, "d")[0].state, model_state::unknown);
  EXPECT_EQ(entries_of(*index, "e").size(), 1u);
  EXPECT_TRUE(entries_of(*index, "dir_d").empty());

  EXPECT_EQ(srv->load("dir_d").code(), errc::internal);
  ASSERT_TRUE(srv->load("d").is_ok());
  auto config = srv->model_config("d");
  ASSERT_TRUE(config);
  EXPECT_EQ((*config)->name(), "d");
  EXPECT_TRUE(infer_sync(*srv, fp32_request("d", "1")).error.is_ok());

  // Unregistered, the repository's models are gone from the index, but the
  // loaded one serves until it is unloaded, and then cannot load again.
  ASSERT_TRUE(srv->unregister_model_repository(other.str()).is_ok());
  index = srv->repository_index();
  ASSERT_TRUE(index);
  EXPECT_TRUE(entries_of(*index, "e").empty());
  EXPECT_TRUE(srv->model_ready("d"));
  EXPECT_TRUE(infer_sync(*srv, fp32_request("d", "2")).error.is_ok());
  ASSERT_TRUE(srv->unload("d").is_ok());
  EXPECT_EQ(srv->load("d").code(), errc::internal);
}

TEST_F(repository, registration_errors_follow_triton) {
  temp_repository other;
  other.add_model("x", identity_config("x"));
  other.add_model("y", identity_config("y"));
  auto srv = start(explicit_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_EQ(srv->register_model_repository(repo_.str()).code(), errc::already_exists);
  EXPECT_EQ(srv->register_model_repository(other.str() + "/missing").code(),
            errc::invalid_argument);
  auto st = srv->register_model_repository(other.str(), {{"x", "a"}});
  EXPECT_EQ(st.code(), errc::already_exists);
  EXPECT_NE(st.message().find("'a'"), std::string::npos) << st.message();
  EXPECT_EQ(srv->register_model_repository(other.str(), {{"x", "m"}, {"y", "m"}}).code(),
            errc::invalid_argument);
  EXPECT_EQ(srv->unregister_model_repository(other.str()).code(), errc::invalid_argument);
  ASSERT_TRUE(srv->register_model_repository(other.str()).is_ok());
  EXPECT_EQ(srv->register_model_repository(other.str()).code(), errc::already_exists);
}

TEST_F(repository, a_name_in_two_repositories_loads_once_one_is_unregistered) {
  temp_repository other;
  other.add_model("a", identity_config("a", 4));
  auto srv = start(explicit_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  ASSERT_TRUE(srv->register_model_repository(other.str()).is_ok());
  auto st = srv->load("a");
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.message().find("appears in multiple repositories"), std::string::npos)
    << st.message();
  ASSERT_TRUE(srv->unregister_model_repository(repo_.str()).is_ok());
  ASSERT_TRUE(srv->load("a").is_ok());
  auto config = srv->model_config("a");
  ASSERT_TRUE(config);
  EXPECT_EQ((*config)->max_batch_size(), 4);
}

TEST_F(repository, registration_is_unsupported_outside_explicit_mode) {
  temp_repository other;
  for (auto mode : {control_mode::none, control_mode::poll}) {
    SCOPED_TRACE(static_cast<int>(mode));
    auto srv = start(options_for(repo_.str(), mode));
    ASSERT_TRUE(srv) << srv.error().to_string();
    EXPECT_EQ(srv->register_model_repository(other.str()).code(), errc::unsupported);
    EXPECT_EQ(srv->unregister_model_repository(repo_.str()).code(), errc::unsupported);
    ASSERT_TRUE(srv->stop().is_ok());
  }
}

} // namespace
} // namespace conch::tests
