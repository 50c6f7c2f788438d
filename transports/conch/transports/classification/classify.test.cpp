#include "conch/transports/classification/classify.hpp"

#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "conch/runtime/bytes_elements.hpp"

namespace conch::transports::classification {
namespace {

using runtime::data_type;
using runtime::errc;

template <class T>
std::string raw_bytes(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty())
    std::memcpy(out.data(), values.data(), out.size());
  return out;
}

runtime::tensor make_tensor(std::string name, data_type type, runtime::shape_type shape,
                            const std::string& bytes) {
  runtime::tensor t;
  t.name = std::move(name);
  t.type = type;
  t.shape = std::move(shape);
  t.data = runtime::buffer::copy_of(bytes.data(), bytes.size());
  return t;
}

std::string bytes_elements(const std::vector<std::string>& elements) {
  std::string out;
  for (const auto& e : elements)
    runtime::append_bytes_element(out, e);
  return out;
}

std::vector<std::string> strings_of(const runtime::tensor& t) {
  auto split = runtime::split_bytes_elements(t.data.data(), t.data.size());
  EXPECT_TRUE(split);
  return split ? std::vector<std::string>(split->begin(), split->end())
               : std::vector<std::string>{};
}

TEST(classification, top_k_of_fp32_sorted_by_value) {
  auto t = make_tensor("OUT", data_type::fp32, {4}, raw_bytes<float>({0.1f, 3.3f, 2.0f, -1.0f}));
  auto c = classify(t, 2, false, {});
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_EQ(c->name, "OUT");
  EXPECT_EQ(c->type, data_type::bytes);
  EXPECT_EQ(c->shape, (runtime::shape_type{2}));
  EXPECT_EQ(strings_of(*c), (std::vector<std::string>{"3.300000:1", "2.000000:2"}));
  EXPECT_TRUE(c->validate_data());
}

TEST(classification, labels_are_appended_when_present) {
  auto t = make_tensor("OUT", data_type::int32, {3}, raw_bytes<int32_t>({5, 9, 7}));
  auto c = classify(t, 3, false, {"cat", "", "dog"});
  ASSERT_TRUE(c);
  // Class 1's label is empty, so it gets none; integers print plainly.
  EXPECT_EQ(strings_of(*c), (std::vector<std::string>{"9:1", "7:2:dog", "5:0:cat"}));
}

TEST(classification, k_beyond_the_class_count_returns_every_class) {
  auto t = make_tensor("OUT", data_type::uint8, {2}, raw_bytes<uint8_t>({1, 200}));
  auto c = classify(t, 10, false, {"a"});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->shape, (runtime::shape_type{2}));
  EXPECT_EQ(strings_of(*c), (std::vector<std::string>{"200:1", "1:0:a"}));
}

TEST(classification, batched_outputs_rank_each_entry) {
  auto t = make_tensor("OUT", data_type::fp64, {2, 3}, raw_bytes<double>({1, 3, 2, 6, 5, 4}));
  auto c = classify(t, 2, true, {});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->shape, (runtime::shape_type{2, 2}));
  EXPECT_EQ(strings_of(*c), (std::vector<std::string>{"3.000000:1", "2.000000:2", "6.000000:0",
                                                      "5.000000:1"}));
  // The same tensor for a model that does not batch is one entry of six.
  auto flat = classify(t, 1, false, {});
  ASSERT_TRUE(flat);
  EXPECT_EQ(flat->shape, (runtime::shape_type{1}));
  EXPECT_EQ(strings_of(*flat), (std::vector<std::string>{"6.000000:3"}));
}

TEST(classification, ties_keep_index_order_and_nan_ranks_last) {
  auto nan = std::numeric_limits<float>::quiet_NaN();
  auto t = make_tensor("OUT", data_type::fp32, {4}, raw_bytes<float>({nan, 1, 2, 2}));
  auto c = classify(t, 4, false, {});
  ASSERT_TRUE(c);
  EXPECT_EQ(strings_of(*c),
            (std::vector<std::string>{"2.000000:2", "2.000000:3", "1.000000:1", "nan:0"}));
}

TEST(classification, every_integer_type_and_signedness) {
  EXPECT_EQ(strings_of(*classify(make_tensor("o", data_type::int8, {2}, raw_bytes<int8_t>({-3, -1})),
                                 1, false, {})),
            (std::vector<std::string>{"-1:1"}));
  EXPECT_EQ(strings_of(*classify(make_tensor("o", data_type::uint64, {2},
                                             raw_bytes<uint64_t>({1, 18446744073709551615u})),
                                 1, false, {})),
            (std::vector<std::string>{"18446744073709551615:1"}));
  for (auto type : {data_type::uint16, data_type::uint32, data_type::int16, data_type::int64}) {
    auto size = runtime::element_size(type);
    auto c = classify(make_tensor("o", type, {2}, std::string(2 * size, '\0')), 1, false, {});
    ASSERT_TRUE(c) << runtime::data_type_name(type);
    EXPECT_EQ(strings_of(*c), (std::vector<std::string>{"0:0"}));
  }
}

TEST(classification, unsupported_types_are_refused) {
  const runtime::tensor bad[] = {
    make_tensor("o", data_type::bytes, {1}, bytes_elements({"a"})),
    make_tensor("o", data_type::bool_, {1}, std::string(1, '\1')),
    make_tensor("o", data_type::fp16, {1}, std::string(2, '\0')),
    make_tensor("o", data_type::bf16, {1}, std::string(2, '\0')),
  };
  for (const auto& t : bad) {
    auto c = classify(t, 1, false, {});
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code(), errc::invalid_argument);
    EXPECT_EQ(c.error().message(), "class result not available for output due to unsupported type '"
                                     + std::string{runtime::data_type_name(t.type)} + "'");
  }
}

TEST(classification, a_size_that_disagrees_with_the_shape_is_internal) {
  auto c = classify(make_tensor("o", data_type::fp32, {3}, raw_bytes<float>({1, 2})), 1, false, {});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code(), errc::internal);
  EXPECT_EQ(c.error().message(), "output tensor shape does not match size of output for 'o'");
}

TEST(classification, too_many_classes_are_refused) {
  auto t = make_tensor("o", data_type::uint8, {max_classification_elements + 1},
                       std::string(max_classification_elements + 1, '\0'));
  auto c = classify(t, 1, false, {});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "classification output tensor too large");
}

} // namespace
} // namespace conch::transports::classification
