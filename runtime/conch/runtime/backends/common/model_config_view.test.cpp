#include "conch/runtime/backends/common/model_config_view.hpp"

#include <gtest/gtest.h>

#include "conch/runtime/backends/test_support/harness.hpp"

using namespace conch::runtime;
using namespace conch::runtime::backends;
using namespace conch::runtime::backends::test_support;

TEST(model_config_view, finds_inputs_outputs_and_parameters_by_name) {
  auto config = make_config("m", "identity");
  add_input(config, "A", inference::TYPE_FP32);
  add_output(config, "B", inference::TYPE_INT8);
  set_parameter(config, "k", "v");
  ASSERT_NE(common::find_input(config, "A"), nullptr);
  EXPECT_EQ(common::find_input(config, "B"), nullptr);
  ASSERT_NE(common::find_output(config, "B"), nullptr);
  EXPECT_EQ(common::find_output(config, "A"), nullptr);
  ASSERT_NE(common::find_config_parameter(config, "k"), nullptr);
  EXPECT_EQ(*common::find_config_parameter(config, "k"), "v");
  EXPECT_EQ(common::find_config_parameter(config, "x"), nullptr);
}

TEST(model_config_view, config_types_convert_to_runtime_types) {
  EXPECT_EQ(common::to_data_type(inference::TYPE_STRING), data_type::bytes);
  EXPECT_EQ(common::to_data_type(inference::TYPE_BF16), data_type::bf16);
  EXPECT_EQ(common::to_data_type(inference::TYPE_FP16), data_type::fp16);
  EXPECT_EQ(common::to_data_type(static_cast<inference::DataType>(99)), data_type::invalid);
}

TEST(model_config_view, integer_parameters_parse_or_name_the_parameter) {
  auto config = make_config("m", "identity");
  EXPECT_EQ(*common::non_negative_config_parameter(config, "n", 7), 7);
  set_parameter(config, "n", "42");
  EXPECT_EQ(*common::non_negative_config_parameter(config, "n", 7), 42);
  for (const char* bad : {"", "-1", "4x", "abc", " 4", "99999999999999999999"}) {
    set_parameter(config, "n", bad);
    auto v = common::non_negative_config_parameter(config, "n", 0);
    ASSERT_FALSE(v) << bad;
    EXPECT_EQ(v.error().code(), errc::invalid_argument);
    EXPECT_NE(v.error().message().find("model 'm'"), std::string::npos);
    EXPECT_NE(v.error().message().find("'n'"), std::string::npos);
  }
}
