#include "conch/transports/http/kserve/header_forwarding.hpp"

#include <string>

#include <gtest/gtest.h>

namespace conch::transports::http::kserve {
namespace {

pattern::text_pattern compiled(const char* source) {
  return *pattern::text_pattern::compile(source, pattern::letter_case::ignored);
}

TEST(header_forwarding, matching_headers_become_string_parameters) {
  header_map h;
  h.add("X-Trace", "abc");
  h.add("Content-Type", "application/json");
  runtime::parameter_list out;
  ASSERT_TRUE(forward_headers(h, compiled("x-.*"), out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "X-Trace");
  EXPECT_EQ(std::get<std::string>(out[0].value), "abc");
}

TEST(header_forwarding, forwarded_headers_count_against_the_parameter_limit) {
  header_map h;
  for (int i = 0; i < 1100; ++i)
    h.add("x-" + std::to_string(i), "v");
  runtime::parameter_list out;
  auto st = forward_headers(h, compiled("x-"), out);
  EXPECT_EQ(st.code(), runtime::errc::invalid_argument);
  EXPECT_EQ(st.message(), "the request has 1025 parameters, more than the limit of 1024");
}

TEST(header_forwarding, reserved_names_are_refused) {
  header_map h;
  h.add("Priority", "1");
  runtime::parameter_list out;
  auto st = forward_headers(h, compiled(".*"), out);
  EXPECT_EQ(st.code(), runtime::errc::invalid_argument);
  EXPECT_EQ(st.message(), "Header 'Priority' is reserved");
  EXPECT_TRUE(reserved_parameter("triton_x"));
  EXPECT_FALSE(reserved_parameter("tritonx"));
}

TEST(header_forwarding, megabyte_long_names_and_values_are_answered) {
  header_map h;
  h.add(std::string(1 << 20, 'x'), "1");
  h.add("X-Big", std::string(1 << 20, 'v'));
  runtime::parameter_list out;
  ASSERT_TRUE(forward_headers(h, compiled("^x.*$"), out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name.size(), size_t{1} << 20);
  EXPECT_EQ(std::get<std::string>(out[1].value).size(), size_t{1} << 20);
}

} // namespace
} // namespace conch::transports::http::kserve
