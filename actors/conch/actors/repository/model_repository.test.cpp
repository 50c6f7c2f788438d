#include "conch/actors/repository/model_repository.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <caf/send.hpp>
#include <gtest/gtest.h>

#include "conch/actors/test/deterministic_fixture.hpp"

using namespace conch::runtime;

namespace conch::actors {
namespace {

namespace fs = std::filesystem;

const char* identity_config = R"(backend: "identity"
max_batch_size: 0
input [{ name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] }]
output [{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] }]
)";

// A repository actor over a startup repository holding model "a", with a
// second repository (directories "dir_b" and "c") ready to register.
struct model_repository_test : test::deterministic_fixture {
  fs::path base;
  fs::path startup;
  fs::path extra;
  adapter_pool_actor pool;
  repository_actor repository;

  model_repository_test() {
    std::random_device rd;
    base = fs::temp_directory_path() / ("conch-repository-actor-" + std::to_string(rd()));
    startup = base / "startup";
    extra = base / "extra";
    add_model(startup / "a");
    add_model(extra / "dir_b");
    add_model(extra / "c");
    // The adapter pool only has to acknowledge each published table.
    pool = sys.spawn([]() -> adapter_pool_actor::behavior_type {
      return {
        [](table_atom, model_table_ptr&) { return caf::ok_atom_v; },
        [](caf::get_atom) { return std::vector<adapter_actor>{}; },
      };
    });
  }

  ~model_repository_test() override {
    if (repository)
      caf::anon_send_exit(repository, caf::exit_reason::kill);
    if (pool)
      caf::anon_send_exit(pool, caf::exit_reason::kill);
    run();
    std::error_code ec;
    fs::remove_all(base, ec);
  }

  static void add_model(const fs::path& dir) {
    fs::create_directories(dir / "1");
    std::ofstream(dir / "config.pbtxt") << identity_config;
  }

  void start(control_mode mode) {
    server_options options;
    options.model_repository = {startup.string()};
    options.model_control_mode = mode;
    options.startup_models = {};
    options.gpu_count = 0;
    options.repository_poll_secs = 0;
    repository = sys.spawn<model_repository>(options, nullptr, std::make_shared<server_flags>(),
                                             pool, false);
    bool started = false;
    sys.spawn([&](caf::event_based_actor* self) {
      self->request(repository, caf::infinite, init_atom_v)
        .then([&](std::vector<std::string>&) { started = true; });
    });
    run();
    ASSERT_TRUE(started);
  }

  template <class... Ts>
  status ask(Ts... xs) {
    status out = internal_error("no answer");
    sys.spawn([&](caf::event_based_actor* self) {
      self->request(repository, caf::infinite, xs...).then([&](status& st) { out = st; });
    });
    run();
    return out;
  }

  status register_root(const fs::path& path, std::map<std::string, std::string> mapping = {}) {
    auto root = std::make_shared<const runtime::repository::repository_root>(
      runtime::repository::repository_root{path, std::move(mapping)});
    return ask(register_atom_v, repository_root_ptr{root});
  }

  // name -> state, from the index.
  std::map<std::string, model_state> index() {
    std::map<std::string, model_state> out;
    sys.spawn([&](caf::event_based_actor* self) {
      self->request(repository, caf::infinite, index_atom_v, false).then([&](index_ptr& rows) {
        for (const auto& e : *rows)
          out[e.name] = e.state;
      });
    });
    run();
    return out;
  }
};

using states = std::map<std::string, model_state>;

TEST_F(model_repository_test, registered_models_show_in_the_index_unloaded) {
  start(control_mode::explicit_);
  EXPECT_EQ(index(), (states{{"a", model_state::unknown}}));
  ASSERT_TRUE(register_root(extra, {{"dir_b", "b"}}));
  EXPECT_EQ(index(), (states{{"a", model_state::unknown},
                             {"b", model_state::unknown},
                             {"c", model_state::unknown}}));
}

TEST_F(model_repository_test, a_mapped_model_loads_by_its_mapped_name_only) {
  start(control_mode::explicit_);
  ASSERT_TRUE(register_root(extra, {{"dir_b", "b"}}));
  auto st = ask(load_atom_v, std::string{"dir_b"}, load_parameters_ptr{});
  EXPECT_EQ(st.code(), errc::internal) << st.to_string();
  st = ask(load_atom_v, std::string{"b"}, load_parameters_ptr{});
  ASSERT_TRUE(st) << st.to_string();
  EXPECT_EQ(index().at("b"), model_state::ready);
}

TEST_F(model_repository_test, unregistering_forgets_the_models_but_keeps_loaded_ones) {
  start(control_mode::explicit_);
  ASSERT_TRUE(register_root(extra, {{"dir_b", "b"}}));
  ASSERT_TRUE(ask(load_atom_v, std::string{"b"}, load_parameters_ptr{}));
  ASSERT_TRUE(ask(unregister_atom_v, extra.string()));
  EXPECT_EQ(index(), (states{{"a", model_state::unknown}, {"b", model_state::ready}}));
  auto st = ask(load_atom_v, std::string{"c"}, load_parameters_ptr{});
  EXPECT_EQ(st.code(), errc::internal) << st.to_string();
  // A second unregistration finds nothing (Triton answers INVALID_ARG).
  st = ask(unregister_atom_v, extra.string());
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_EQ(st.message(), "failed to unregister '" + extra.string() + "', repository not found");
  // And the path may be registered again.
  EXPECT_TRUE(register_root(extra));
}

TEST_F(model_repository_test, registration_errors_follow_triton) {
  start(control_mode::explicit_);
  EXPECT_EQ(register_root(startup).code(), errc::already_exists);
  EXPECT_EQ(register_root(base / "missing").code(), errc::invalid_argument);
  EXPECT_EQ(register_root(extra, {{"dir_b", "a"}}).code(), errc::already_exists);
  EXPECT_EQ(register_root(extra, {{"dir_b", "x"}, {"c", "x"}}).code(), errc::invalid_argument);
  // Nothing of the refused registrations stayed.
  EXPECT_EQ(index(), (states{{"a", model_state::unknown}}));
}

TEST_F(model_repository_test, registration_needs_explicit_mode) {
  start(control_mode::none);
  auto st = register_root(extra);
  EXPECT_EQ(st.code(), errc::unsupported);
  EXPECT_EQ(st.message(),
            "repository registration is not allowed if model control mode is not EXPLICIT");
  st = ask(unregister_atom_v, startup.string());
  EXPECT_EQ(st.code(), errc::unsupported);
  EXPECT_EQ(st.message(),
            "repository unregistration is not allowed if model control mode is not EXPLICIT");
}

} // namespace
} // namespace conch::actors
