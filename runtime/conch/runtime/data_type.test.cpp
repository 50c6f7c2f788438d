#include "conch/runtime/data_type.hpp"

#include <gtest/gtest.h>

using namespace conch::runtime;

TEST(data_type, sizes_and_names_follow_the_protocol) {
  struct row { data_type t; size_t size; const char* name; const char* config; };
  const row rows[] = {
    {data_type::bool_, 1, "BOOL", "TYPE_BOOL"},     {data_type::uint8, 1, "UINT8", "TYPE_UINT8"},
    {data_type::uint16, 2, "UINT16", "TYPE_UINT16"}, {data_type::uint32, 4, "UINT32", "TYPE_UINT32"},
    {data_type::uint64, 8, "UINT64", "TYPE_UINT64"}, {data_type::int8, 1, "INT8", "TYPE_INT8"},
    {data_type::int16, 2, "INT16", "TYPE_INT16"},    {data_type::int32, 4, "INT32", "TYPE_INT32"},
    {data_type::int64, 8, "INT64", "TYPE_INT64"},    {data_type::fp16, 2, "FP16", "TYPE_FP16"},
    {data_type::fp32, 4, "FP32", "TYPE_FP32"},       {data_type::fp64, 8, "FP64", "TYPE_FP64"},
    {data_type::bytes, 0, "BYTES", "TYPE_STRING"},   {data_type::bf16, 2, "BF16", "TYPE_BF16"},
  };
  for (const auto& r : rows) {
    EXPECT_EQ(element_size(r.t), r.size) << r.name;
    EXPECT_EQ(data_type_name(r.t), r.name);
    EXPECT_EQ(config_type_name(r.t), r.config);
    EXPECT_EQ(parse_data_type(r.name), r.t);
    EXPECT_EQ(parse_config_type(r.config), r.t);
  }
  EXPECT_EQ(static_cast<int>(data_type::bf16), 14);
}

TEST(data_type, unknown_names_are_rejected) {
  EXPECT_FALSE(parse_data_type("FLOAT"));
  EXPECT_FALSE(parse_data_type("INVALID"));
  EXPECT_FALSE(parse_config_type("TYPE_BYTES"));
  EXPECT_FALSE(parse_data_type(""));
}
