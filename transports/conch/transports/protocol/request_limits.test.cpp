#include "conch/transports/protocol/request_limits.hpp"

#include <gtest/gtest.h>

namespace conch::transports::protocol {
namespace {

using runtime::errc;

TEST(request_limits, counts_up_to_each_limit_pass) {
  EXPECT_TRUE(check_input_count(0));
  EXPECT_TRUE(check_input_count(max_request_inputs));
  EXPECT_TRUE(check_output_count(max_request_outputs));
  EXPECT_TRUE(check_parameter_count("the request", max_request_parameters));
}

TEST(request_limits, a_count_past_a_limit_is_invalid_argument_naming_it) {
  auto inputs = check_input_count(max_request_inputs + 1);
  EXPECT_EQ(inputs.code(), errc::invalid_argument);
  EXPECT_EQ(inputs.message(), "the request has 4097 inputs, more than the limit of 4096");
  auto outputs = check_output_count(200000);
  EXPECT_EQ(outputs.code(), errc::invalid_argument);
  EXPECT_EQ(outputs.message(), "the request has 200000 outputs, more than the limit of 4096");
  auto params = check_parameter_count("input 'x'", 1025);
  EXPECT_EQ(params.code(), errc::invalid_argument);
  EXPECT_EQ(params.message(), "input 'x' has 1025 parameters, more than the limit of 1024");
  EXPECT_TRUE(check_parameter_count("output", "y", 1024));
  auto named = check_parameter_count("output", "y", 1025);
  EXPECT_EQ(named.message(), "output 'y' has 1025 parameters, more than the limit of 1024");
}

TEST(request_limits, repeated_names_use_the_protocol_texts) {
  EXPECT_EQ(repeated_input("A").message(), "input 'A' already exists in request");
  EXPECT_EQ(repeated_input("A").code(), errc::invalid_argument);
}

} // namespace
} // namespace conch::transports::protocol
