#include "conch/transports/grpc/repository_parameters.hpp"

#include <gtest/gtest.h>

namespace conch::transports::grpc {
namespace {

TEST(repository_parameters, load_takes_config_and_raw_files) {
  repository_parameter_map params;
  params["config"].set_string_param(R"({"backend":"identity"})");
  params["file:1/model.bin"].set_bytes_param(std::string{"\x00\x01", 2});
  params["other"].set_int64_param(3);
  auto r = decode_load_parameters(params);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->config_json, R"({"backend":"identity"})");
  ASSERT_EQ(r->files.size(), 1u);
  EXPECT_EQ(r->files[0].first, "file:1/model.bin");
  EXPECT_EQ(r->files[0].second, std::string("\x00\x01", 2));
  EXPECT_FALSE(decode_load_parameters({})->config_json);
}

TEST(repository_parameters, wrong_types_are_invalid) {
  repository_parameter_map config;
  config["config"].set_bool_param(true);
  EXPECT_EQ(decode_load_parameters(config).error().message(),
            "invalid value type for load parameter 'config', expected string_param");
  repository_parameter_map file;
  file["file:1/x"].set_string_param("aGk=");
  EXPECT_EQ(decode_load_parameters(file).error().code(), runtime::errc::invalid_argument);
  repository_parameter_map unload;
  unload["unload_dependents"].set_int64_param(1);
  EXPECT_EQ(decode_unload_dependents(unload).error().code(), runtime::errc::invalid_argument);
  unload["unload_dependents"].set_bool_param(true);
  EXPECT_TRUE(*decode_unload_dependents(unload));
  EXPECT_FALSE(*decode_unload_dependents({}));
}

} // namespace
} // namespace conch::transports::grpc
