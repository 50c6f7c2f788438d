#include "conch/transports/status_mapping.hpp"

#include <set>

#include <gtest/gtest.h>

namespace conch::transports {
namespace {

using runtime::errc;

// Every errc value, from the first to the last declared.
constexpr errc every_code[] = {errc::ok,          errc::internal,       errc::not_found,
                               errc::invalid_argument, errc::unavailable, errc::unsupported,
                               errc::already_exists, errc::cancelled,  errc::unknown};

TEST(status_mapping, table_lists_every_code_once_in_enum_order) {
  const auto& t = status_mapping_table();
  ASSERT_EQ(t.size(), std::size(every_code));
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].code, every_code[i]);
    EXPECT_EQ(static_cast<size_t>(t[i].code), i);
  }
}

TEST(status_mapping, http_status_follows_the_spec) {
  EXPECT_EQ(http_status(errc::ok), 200);
  EXPECT_EQ(http_status(errc::internal), 500);
  EXPECT_EQ(http_status(errc::not_found), 404);
  EXPECT_EQ(http_status(errc::unavailable), 503);
  EXPECT_EQ(http_status(errc::unsupported), 501);
  EXPECT_EQ(http_status(errc::invalid_argument), 400);
  EXPECT_EQ(http_status(errc::already_exists), 400);
  EXPECT_EQ(http_status(errc::cancelled), 400);
  EXPECT_EQ(http_status(errc::unknown), 400);
}

TEST(status_mapping, grpc_code_follows_the_spec) {
  EXPECT_EQ(grpc_code(errc::ok), 0);
  EXPECT_EQ(grpc_code(errc::internal), 13);
  EXPECT_EQ(grpc_code(errc::not_found), 5);
  EXPECT_EQ(grpc_code(errc::unavailable), 14);
  EXPECT_EQ(grpc_code(errc::unsupported), 12);
  EXPECT_EQ(grpc_code(errc::invalid_argument), 3);
  EXPECT_EQ(grpc_code(errc::already_exists), 6);
  EXPECT_EQ(grpc_code(errc::cancelled), 1);
  EXPECT_EQ(grpc_code(errc::unknown), 2);
  EXPECT_EQ(status_mapping_for(errc::unsupported).grpc_name, "UNIMPLEMENTED");
}

TEST(status_mapping, every_error_code_is_an_error_on_both_wires) {
  std::set<int> grpc_codes;
  for (auto code : every_code) {
    const auto& e = status_mapping_for(code);
    EXPECT_EQ(e.code, code);
    grpc_codes.insert(e.grpc_code);
    if (code == errc::ok)
      continue;
    EXPECT_GE(e.http_status, 400) << runtime::errc_name(code);
    EXPECT_NE(e.grpc_code, 0) << runtime::errc_name(code);
  }
  EXPECT_EQ(grpc_codes.size(), std::size(every_code)); // gRPC keeps every class apart
}

TEST(status_mapping, values_outside_the_enum_map_like_unknown) {
  auto stray = static_cast<errc>(200);
  EXPECT_EQ(http_status(stray), 400);
  EXPECT_EQ(grpc_code(stray), 2);
}

} // namespace
} // namespace conch::transports
