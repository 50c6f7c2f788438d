#include "conch/transports/http/kserve/header_forwarding.hpp"

#include <gtest/gtest.h>

namespace conch::transports::http::kserve {
namespace {

TEST(header_forwarding, matching_headers_become_string_parameters) {
  header_map h;
  h.add("X-Trace", "abc");
  h.add("Content-Type", "application/json");
  runtime::parameter_list out;
  ASSERT_TRUE(forward_headers(h, std::regex{"x-.*", std::regex::icase}, out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "X-Trace");
  EXPECT_EQ(std::get<std::string>(out[0].value), "abc");
}

TEST(header_forwarding, reserved_names_are_refused) {
  header_map h;
  h.add("Priority", "1");
  runtime::parameter_list out;
  auto st = forward_headers(h, std::regex{".*", std::regex::icase}, out);
  EXPECT_EQ(st.code(), runtime::errc::invalid_argument);
  EXPECT_EQ(st.message(), "Header 'Priority' is reserved");
  EXPECT_TRUE(reserved_parameter("triton_x"));
  EXPECT_FALSE(reserved_parameter("tritonx"));
}

} // namespace
} // namespace conch::transports::http::kserve
