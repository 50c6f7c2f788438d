#include "conch/transports/http/kserve/codec/json_tensor_data.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "conch/runtime/bytes_elements.hpp"
#include "conch/transports/http/kserve/codec/json_reader.hpp"
#include "conch/transports/http/kserve/codec/test/codec_test_util.hpp"

namespace conch::transports::http::kserve::codec {
namespace {

using runtime::data_type;
using runtime::errc;
using test::values_of;

runtime::result<runtime::buffer> read(const std::string& json, data_type type, int64_t count) {
  scratch_document scratch;
  auto& doc = scratch.doc();
  auto st = scratch.parse(json);
  EXPECT_TRUE(st) << st.to_string();
  return read_json_tensor_data(doc, type, count, "IN");
}

template <class T>
std::vector<T> read_values(const std::string& json, data_type type, int64_t count) {
  auto b = read(json, type, count);
  EXPECT_TRUE(b) << b.error().to_string();
  return b ? values_of<T>(*b) : std::vector<T>{};
}

TEST(json_tensor_data, bool_takes_true_and_false_as_one_byte) {
  EXPECT_EQ(read_values<uint8_t>("[true,false,true]", data_type::bool_, 3),
            (std::vector<uint8_t>{1, 0, 1}));
  auto bad = read("[1,0]", data_type::bool_, 2);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), errc::invalid_argument);
  EXPECT_EQ(bad.error().message(),
            "Unable to parse 'data': element 0 of input 'IN' is not a boolean (true or false)");
}

TEST(json_tensor_data, unsigned_types_take_their_whole_range) {
  EXPECT_EQ(read_values<uint8_t>("[0,255]", data_type::uint8, 2), (std::vector<uint8_t>{0, 255}));
  EXPECT_EQ(read_values<uint16_t>("[0,65535]", data_type::uint16, 2),
            (std::vector<uint16_t>{0, 65535}));
  EXPECT_EQ(read_values<uint32_t>("[4294967295]", data_type::uint32, 1),
            (std::vector<uint32_t>{4294967295u}));
  EXPECT_EQ(read_values<uint64_t>("[18446744073709551615]", data_type::uint64, 1),
            (std::vector<uint64_t>{std::numeric_limits<uint64_t>::max()}));
}

TEST(json_tensor_data, signed_types_take_their_whole_range) {
  EXPECT_EQ(read_values<int8_t>("[-128,127]", data_type::int8, 2), (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(read_values<int16_t>("[-32768,32767]", data_type::int16, 2),
            (std::vector<int16_t>{-32768, 32767}));
  EXPECT_EQ(read_values<int32_t>("[-2147483648,2147483647]", data_type::int32, 2),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 2147483647}));
  EXPECT_EQ(read_values<int64_t>("[-9223372036854775808,9223372036854775807]", data_type::int64, 2),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max()}));
}

TEST(json_tensor_data, out_of_range_integers_are_refused) {
  struct bad_case {
    const char* json;
    data_type type;
    const char* message;
  };
  const bad_case cases[] = {
    {"[256]", data_type::uint8, "element 0 of input 'IN' is out of range for UINT8"},
    {"[-1]", data_type::uint16, "element 0 of input 'IN' is out of range for UINT16"},
    {"[4294967296]", data_type::uint32, "element 0 of input 'IN' is out of range for UINT32"},
    {"[-1]", data_type::uint64, "element 0 of input 'IN' is out of range for UINT64"},
    {"[0,128]", data_type::int8, "element 1 of input 'IN' is out of range for INT8"},
    {"[-32769]", data_type::int16, "element 0 of input 'IN' is out of range for INT16"},
    {"[2147483648]", data_type::int32, "element 0 of input 'IN' is out of range for INT32"},
    {"[9223372036854775808]", data_type::int64, "element 0 of input 'IN' is out of range for INT64"},
  };
  for (const auto& c : cases) {
    int64_t n = c.json == std::string{"[0,128]"} ? 2 : 1;
    auto r = read(c.json, c.type, n);
    ASSERT_FALSE(r) << c.json;
    EXPECT_EQ(r.error().code(), errc::invalid_argument);
    EXPECT_EQ(r.error().message(), std::string{"Unable to parse 'data': "} + c.message);
  }
}

TEST(json_tensor_data, integers_must_be_integral_json) {
  auto r = read("[1.0]", data_type::int32, 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "Unable to parse 'data': element 0 of input 'IN' is not an integer");
  auto s = read("[\"1\"]", data_type::uint8, 1);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), errc::invalid_argument);
}

TEST(json_tensor_data, floating_point_takes_any_number) {
  EXPECT_EQ(read_values<float>("[1.5,2,-3]", data_type::fp32, 3), (std::vector<float>{1.5f, 2, -3}));
  EXPECT_EQ(read_values<double>("[0.1,18446744073709551615]", data_type::fp64, 2),
            (std::vector<double>{0.1, 18446744073709551615.0}));
  auto nan = read_values<float>("[NaN,Infinity]", data_type::fp32, 2);
  ASSERT_EQ(nan.size(), 2u);
  EXPECT_TRUE(std::isnan(nan[0]));
  EXPECT_TRUE(std::isinf(nan[1]));
  auto big = read("[1e39]", data_type::fp32, 1);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().message(),
            "Unable to parse 'data': element 0 of input 'IN' is out of range for FP32");
  auto text = read("[\"x\"]", data_type::fp64, 1);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message(), "Unable to parse 'data': element 0 of input 'IN' is not a number");
}

TEST(json_tensor_data, bytes_become_length_prefixed_elements) {
  auto b = read(R"(["ab","","x\u0000y"])", data_type::bytes, 3);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(test::text_of(*b), test::bytes_elements({"ab", "", std::string{"x\0y", 3}}));
  auto bad = read("[\"a\",1]", data_type::bytes, 2);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "Unable to parse 'data': element 1 of input 'IN' is not a string");
}

TEST(json_tensor_data, nested_arrays_are_flattened_row_major) {
  EXPECT_EQ(read_values<int32_t>("[[1,2,3],[4,5,6]]", data_type::int32, 6),
            (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(read_values<int32_t>("[[[1],[2]],[[3],[4]]]", data_type::int32, 4),
            (std::vector<int32_t>{1, 2, 3, 4}));
  // Nesting need not follow the shape: only the element count matters.
  EXPECT_EQ(read_values<int32_t>("[1,[2,[3]],4]", data_type::int32, 4),
            (std::vector<int32_t>{1, 2, 3, 4}));
}

TEST(json_tensor_data, nesting_is_capped_at_one_hundred_levels) {
  auto nested = [](int depth) {
    return std::string(depth, '[') + "1" + std::string(depth, ']');
  };
  EXPECT_TRUE(read(nested(100), data_type::int32, 1));
  // The parser refuses anything deeper (json_policy); a value built by code
  // is held to the same limit here.
  rapidjson::Document doc(rapidjson::kArrayType);
  auto& a = doc.GetAllocator();
  rapidjson::Value inner(rapidjson::kArrayType);
  inner.PushBack(1, a);
  for (int depth = 1; depth < 100; ++depth) {
    rapidjson::Value outer(rapidjson::kArrayType);
    outer.PushBack(inner, a);
    inner = outer;
  }
  doc.PushBack(inner, a);
  auto deep = read_json_tensor_data(doc, data_type::int32, 1, "IN");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().code(), errc::invalid_argument);
  EXPECT_EQ(deep.error().message(),
            "Unable to parse 'data': arrays are nested deeper than 100 levels");
}

TEST(json_tensor_data, element_count_must_match_the_shape) {
  for (auto json : {"[1,2,3]", "[[1,2],[3,4],[5]]", "[]"}) {
    auto r = read(json, data_type::int32, 4);
    ASSERT_FALSE(r) << json;
    EXPECT_EQ(r.error().code(), errc::internal);
    EXPECT_EQ(r.error().message(),
              "Unable to parse 'data': Shape does not match true shape of 'data' field");
  }
  // BYTES elements are counted by the request's validation (tensor::validate_data).
  EXPECT_TRUE(read("[\"a\",\"b\"]", data_type::bytes, 1));
}

TEST(json_tensor_data, half_precision_is_refused_in_json) {
  auto fp16 = read("[1.0]", data_type::fp16, 1);
  ASSERT_FALSE(fp16);
  EXPECT_EQ(fp16.error().code(), errc::invalid_argument);
  EXPECT_EQ(fp16.error().message(),
            "receiving FP16 data via JSON is not supported. Please use the binary data format "
            "for input IN");
  auto bf16 = read("[1.0]", data_type::bf16, 1);
  ASSERT_FALSE(bf16);
  EXPECT_EQ(bf16.error().message(),
            "receiving BF16 data via JSON is not supported. Please use the binary data format "
            "for input IN");
}

TEST(json_tensor_data, data_must_be_an_array) {
  auto r = read("5", data_type::int32, 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "Unable to parse 'data': expected an array");
}

} // namespace
} // namespace conch::transports::http::kserve::codec
