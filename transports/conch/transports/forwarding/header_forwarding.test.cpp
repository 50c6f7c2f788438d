#include "conch/transports/forwarding/header_forwarding.hpp"

#include <string>

#include <gtest/gtest.h>

namespace conch::transports::forwarding {
namespace {

TEST(header_forwarding, an_empty_pattern_forwards_nothing) {
  auto pattern = compile_forward_pattern("", "forward_header_pattern");
  ASSERT_TRUE(pattern);
  EXPECT_FALSE(pattern->has_value());
}

TEST(header_forwarding, a_bad_pattern_names_its_option) {
  auto pattern = compile_forward_pattern("(", "forward_header_pattern");
  ASSERT_FALSE(pattern);
  EXPECT_EQ(pattern.error().code(), runtime::errc::invalid_argument);
  EXPECT_NE(pattern.error().message().find("forward_header_pattern '('"), std::string::npos);
}

TEST(header_forwarding, the_pattern_searches_the_name_in_any_case) {
  auto pattern = compile_forward_pattern("^x-", "p");
  ASSERT_TRUE(pattern && pattern->has_value());
  auto upper = forwards_header("X-Trace", **pattern);
  ASSERT_TRUE(upper);
  EXPECT_TRUE(*upper);
  auto other = forwards_header("user-agent", **pattern);
  ASSERT_TRUE(other);
  EXPECT_FALSE(*other);
  // A search, not a full match.
  auto inner = compile_forward_pattern("trace", "p");
  auto found = forwards_header("x-trace-id", **inner);
  ASSERT_TRUE(found);
  EXPECT_TRUE(*found);
}

TEST(header_forwarding, reserved_names_are_refused_only_when_matched) {
  auto pattern = compile_forward_pattern(".*", "p");
  auto priority = forwards_header("Priority", **pattern);
  ASSERT_FALSE(priority);
  EXPECT_EQ(priority.error().message(), "Header 'Priority' is reserved");
  auto narrow = compile_forward_pattern("^x-", "p");
  auto skipped = forwards_header("triton_grpc_error", **narrow);
  ASSERT_TRUE(skipped);
  EXPECT_FALSE(*skipped);
  EXPECT_TRUE(reserved_parameter("TRITON_x"));
  EXPECT_TRUE(reserved_parameter("binary_data_output"));
  EXPECT_FALSE(reserved_parameter("tritonx"));
  EXPECT_FALSE(reserved_parameter("x-priority"));
}

// A header name of tens of kilobytes overflowed std::regex's recursion and
// ended the process; a megabyte is looked at in linear time.
TEST(header_forwarding, a_megabyte_long_name_is_answered) {
  const std::string name(1 << 20, 'x');
  for (const char* source : {".*", "x.*y", "^(x|y)*$", "(x+x+)+z"}) {
    auto pattern = compile_forward_pattern(source, "p");
    ASSERT_TRUE(pattern && pattern->has_value()) << source;
    auto forwarded = forwards_header(name, **pattern);
    ASSERT_TRUE(forwarded) << source;
    EXPECT_EQ(*forwarded, std::string{source} == ".*" || std::string{source} == "^(x|y)*$")
      << source;
  }
}

TEST(header_forwarding, the_error_names_the_option_and_the_pattern) {
  auto pattern = compile_forward_pattern("([", "header_forward_pattern");
  ASSERT_FALSE(pattern);
  EXPECT_EQ(pattern.error().message().rfind("header_forward_pattern '([' is not a valid regular "
                                            "expression: ",
                                            0),
            0u)
    << pattern.error().message();
}

} // namespace
} // namespace conch::transports::forwarding
