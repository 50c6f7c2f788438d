#include "conch/runtime/backends/registry.hpp"

#include <gtest/gtest.h>

#include "conch/runtime/backends/test_support/harness.hpp"

using namespace conch::runtime;
using namespace conch::runtime::backends;
using namespace conch::runtime::backends::test_support;

namespace {

backend_entry fake_backend(const std::string& name) {
  return {name, [](const model_context&) -> result<std::unique_ptr<backend_model>> {
            return unsupported("fake");
          },
          nullptr};
}

} // namespace

TEST(registry, the_global_registry_holds_the_builtin_backends) {
  auto names = registry::global().names();
  EXPECT_EQ(names, (std::vector<std::string>{"add_sub", "ensemble", "identity", "repeat"}));
  EXPECT_TRUE(registry::global().find("identity").has_value());
  EXPECT_FALSE(registry::global().find("nope").has_value());
}

TEST(registry, maps_triton_platforms_to_backends) {
  const auto& r = registry::global();
  EXPECT_EQ(r.backend_for_platform("onnxruntime_onnx"), "onnxruntime");
  EXPECT_EQ(r.backend_for_platform("pytorch_libtorch"), "pytorch");
  EXPECT_EQ(r.backend_for_platform("tensorflow_savedmodel"), "tensorflow");
  EXPECT_EQ(r.backend_for_platform("tensorflow_graphdef"), "tensorflow");
  EXPECT_EQ(r.backend_for_platform("tensorrt_plan"), "tensorrt");
  EXPECT_EQ(r.backend_for_platform("ensemble"), "ensemble");
  EXPECT_FALSE(r.backend_for_platform("identity").has_value());
}

TEST(registry, the_backend_field_wins_over_the_platform) {
  auto config = make_config("m", "identity");
  config.set_platform("onnxruntime_onnx");
  auto entry = registry::global().resolve(config);
  ASSERT_TRUE(entry) << entry.error().to_string();
  EXPECT_EQ(entry->name, "identity");
}

TEST(registry, resolves_a_platform_through_the_map) {
  registry r;
  r.add(fake_backend("onnxruntime"));
  r.add_platform("onnxruntime_onnx", "onnxruntime");
  auto config = make_config("m", "");
  config.set_platform("onnxruntime_onnx");
  auto entry = r.resolve(config);
  ASSERT_TRUE(entry) << entry.error().to_string();
  EXPECT_EQ(entry->name, "onnxruntime");
}

TEST(registry, a_config_without_backend_or_platform_is_invalid) {
  auto entry = registry::global().resolve(make_config("m", ""));
  ASSERT_FALSE(entry);
  EXPECT_EQ(entry.error(), invalid_argument("model configuration must specify 'backend' or "
                                            "'platform'"));
}

TEST(registry, an_unknown_backend_is_named_in_the_error) {
  auto entry = registry::global().resolve(make_config("m", "nope"));
  ASSERT_FALSE(entry);
  EXPECT_EQ(entry.error(), invalid_argument("unable to find backend 'nope'"));
}

TEST(registry, a_platform_whose_backend_is_missing_names_the_backend) {
  auto config = make_config("m", "");
  config.set_platform("tensorrt_plan");
  auto entry = registry::global().resolve(config);
  ASSERT_FALSE(entry);
  EXPECT_EQ(entry.error(), invalid_argument("unable to find backend 'tensorrt'"));
}

TEST(registry, an_unknown_platform_is_invalid) {
  auto config = make_config("m", "");
  config.set_platform("caffe2_netdef");
  auto entry = registry::global().resolve(config);
  ASSERT_FALSE(entry);
  EXPECT_EQ(entry.error().code(), errc::invalid_argument);
  EXPECT_NE(entry.error().message().find("caffe2_netdef"), std::string::npos);
}

TEST(registry, add_replaces_and_builtins_register_idempotently) {
  registry r;
  register_builtin_backends(r);
  register_builtin_backends(r);
  EXPECT_EQ(r.names().size(), 4u);
  r.add(fake_backend("identity"));
  auto config = make_config("m", "identity");
  auto entry = r.resolve(config);
  ASSERT_TRUE(entry);
  auto model = entry->factory(model_context{});
  ASSERT_FALSE(model);
  EXPECT_EQ(model.error().message(), "fake");
}

TEST(registry, a_backend_of_the_backend_directory_comes_first) {
  registry r;
  r.add(fake_backend("add_sub"));
  std::vector<std::string> asked;
  r.add_directory_resolver([&](const std::string& name, const std::filesystem::path& dir)
                             -> std::optional<backend_entry> {
    asked.push_back(dir.string() + "|" + name);
    if (name == "add_sub")
      return fake_backend("from_directory");
    return std::nullopt;
  });
  inference::ModelConfig config;
  config.set_backend("add_sub");
  EXPECT_EQ(r.resolve(config, "/backends")->name, "from_directory");
  EXPECT_EQ(r.resolve(config)->name, "add_sub"); // no directory: the registered one
  config.set_backend("other");
  EXPECT_FALSE(r.resolve(config, "/backends").has_value());
  EXPECT_EQ(asked, (std::vector<std::string>{"/backends|add_sub", "/backends|other"}));
}

TEST(registry, a_backend_name_never_reaches_outside_the_backend_directory) {
  registry r;
  bool asked = false;
  r.add_directory_resolver([&](const std::string&, const std::filesystem::path&)
                             -> std::optional<backend_entry> {
    asked = true;
    return fake_backend("escaped");
  });
  for (const std::string& name :
       std::vector<std::string>{"../x", "a/b", "..", ".", "a\\b", std::string("a\0b", 3)}) {
    inference::ModelConfig config;
    config.set_backend(name);
    auto found = r.resolve(config, "/backends");
    EXPECT_FALSE(found.has_value()) << name;
  }
  EXPECT_FALSE(asked);
}
