#include "conch/transports/http/kserve/codec/json_tensor_write.hpp"

#include <limits>

#include <gtest/gtest.h>

#include "conch/transports/http/kserve/codec/test/codec_test_util.hpp"

namespace conch::transports::http::kserve::codec {
namespace {

using runtime::data_type;
using runtime::errc;
using test::make_tensor;
using test::raw_bytes;

runtime::result<std::string> write(const runtime::tensor& t) {
  std::string out;
  string_output stream{out};
  json_writer w{stream};
  auto st = write_json_tensor_data(w, t);
  if (!st)
    return st;
  return out;
}

std::string written(const runtime::tensor& t) {
  auto r = write(t);
  EXPECT_TRUE(r) << r.error().to_string();
  return r ? *r : std::string{};
}

TEST(json_tensor_write, every_fixed_size_type_as_a_flat_array) {
  EXPECT_EQ(written(make_tensor("o", data_type::bool_, {3}, std::string{"\1\0\1", 3})),
            "[true,false,true]");
  EXPECT_EQ(written(make_tensor("o", data_type::uint8, {2}, raw_bytes<uint8_t>({0, 255}))),
            "[0,255]");
  EXPECT_EQ(written(make_tensor("o", data_type::uint16, {1}, raw_bytes<uint16_t>({65535}))),
            "[65535]");
  EXPECT_EQ(written(make_tensor("o", data_type::uint32, {1}, raw_bytes<uint32_t>({4294967295u}))),
            "[4294967295]");
  EXPECT_EQ(written(make_tensor("o", data_type::uint64, {1},
                                raw_bytes<uint64_t>({std::numeric_limits<uint64_t>::max()}))),
            "[18446744073709551615]");
  EXPECT_EQ(written(make_tensor("o", data_type::int8, {2}, raw_bytes<int8_t>({-128, 127}))),
            "[-128,127]");
  EXPECT_EQ(written(make_tensor("o", data_type::int16, {1}, raw_bytes<int16_t>({-32768}))),
            "[-32768]");
  EXPECT_EQ(written(make_tensor("o", data_type::int32, {2}, raw_bytes<int32_t>({-1, 7}))),
            "[-1,7]");
  EXPECT_EQ(written(make_tensor("o", data_type::int64, {1},
                                raw_bytes<int64_t>({std::numeric_limits<int64_t>::min()}))),
            "[-9223372036854775808]");
  EXPECT_EQ(written(make_tensor("o", data_type::fp64, {2}, raw_bytes<double>({0.5, -2.25}))),
            "[0.5,-2.25]");
}

TEST(json_tensor_write, multi_dimensional_outputs_are_flat) {
  EXPECT_EQ(written(make_tensor("o", data_type::int32, {2, 2}, raw_bytes<int32_t>({1, 2, 3, 4}))),
            "[1,2,3,4]");
}

TEST(json_tensor_write, fp32_goes_through_double) {
  EXPECT_EQ(written(make_tensor("o", data_type::fp32, {2}, raw_bytes<float>({1.1f, 2.0f}))),
            "[1.100000023841858,2.0]");
  auto inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(written(make_tensor("o", data_type::fp32, {3},
                                raw_bytes<float>({std::numeric_limits<float>::quiet_NaN(), inf,
                                                  -inf}))),
            "[NaN,Infinity,-Infinity]");
}

TEST(json_tensor_write, bytes_are_strings) {
  EXPECT_EQ(written(make_tensor("o", data_type::bytes, {3},
                                test::bytes_elements({"ab", "", "q\"\n"}))),
            R"(["ab","","q\"\n"])");
  EXPECT_EQ(written(make_tensor("o", data_type::bytes, {0}, "")), "[]");
}

TEST(json_tensor_write, half_precision_is_refused) {
  for (auto type : {data_type::fp16, data_type::bf16}) {
    auto r = write(make_tensor("o", type, {1}, std::string(2, '\0')));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), errc::invalid_argument);
    EXPECT_EQ(r.error().message(), "sending " + std::string{runtime::data_type_name(type)}
                                     + " data via JSON is not supported. Please use the binary "
                                       "data format for output");
  }
}

TEST(json_tensor_write, bytes_that_disagree_with_the_shape_are_internal) {
  const runtime::tensor bad[] = {
    make_tensor("o", data_type::int32, {3}, raw_bytes<int32_t>({1, 2})),
    make_tensor("o", data_type::bytes, {2}, test::bytes_elements({"a"})),
    make_tensor("o", data_type::bytes, {1}, std::string{"\5\0\0\0ab", 6}),
  };
  for (const auto& t : bad) {
    auto r = write(t);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), errc::internal);
    EXPECT_EQ(r.error().message(), "output tensor shape does not match size of output for 'o'");
  }
}

} // namespace
} // namespace conch::transports::http::kserve::codec
