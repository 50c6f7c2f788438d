#include "conch/runtime/request_parameters.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace conch::runtime {
namespace {

// Each value type a frontend can hand over, built explicitly (a bare literal
// would be ambiguous among the variant's alternatives).
request_parameter_value none() { return unsupported_parameter_value{}; }
request_parameter_value boolean(bool b) { return b; }
request_parameter_value signed_int(int64_t i) { return i; }
request_parameter_value unsigned_int(uint64_t u) { return u; }
request_parameter_value real(double d) { return d; }
request_parameter_value text(std::string_view s) { return s; }

// The fields a reserved parameter may set are as a fresh request has them.
void expect_untouched(const inference_request& r) {
  EXPECT_TRUE(std::holds_alternative<std::monostate>(r.correlation_id));
  EXPECT_EQ(r.flags, 0u);
  EXPECT_EQ(r.priority, 0u);
  EXPECT_EQ(r.timeout_us, 0u);
  EXPECT_TRUE(r.parameters.empty());
}

void expect_wrong_type(std::string_view key, const request_parameter_value& value,
                       reserved_request_parameter which, expected_parameter_type expected) {
  inference_request r;
  auto result = apply_request_parameter(key, value, r);
  EXPECT_FALSE(result) << key << " (alternative " << value.index() << ")";
  EXPECT_EQ(result.outcome, request_parameter_outcome::wrong_type) << key;
  EXPECT_EQ(result.key, which) << key;
  EXPECT_EQ(result.expected, expected) << key;
  expect_untouched(r);
}

TEST(request_parameters, reserved_names_are_exact) {
  EXPECT_EQ(find_reserved_request_parameter("sequence_id"), reserved_request_parameter::sequence_id);
  EXPECT_EQ(find_reserved_request_parameter("sequence_start"),
            reserved_request_parameter::sequence_start);
  EXPECT_EQ(find_reserved_request_parameter("sequence_end"),
            reserved_request_parameter::sequence_end);
  EXPECT_EQ(find_reserved_request_parameter("priority"), reserved_request_parameter::priority);
  EXPECT_EQ(find_reserved_request_parameter("timeout"), reserved_request_parameter::timeout);
  for (std::string_view other : {"", "Priority", "TIMEOUT", "sequence_id ", "sequence", "headers",
                                 "binary_data_output", "triton_enable_empty_final_response"})
    EXPECT_FALSE(find_reserved_request_parameter(other)) << other;
}

TEST(request_parameters, each_reserved_parameter_expects_its_type) {
  EXPECT_EQ(expected_type_of(reserved_request_parameter::sequence_id),
            expected_parameter_type::unsigned_or_string);
  EXPECT_EQ(expected_type_of(reserved_request_parameter::sequence_start),
            expected_parameter_type::boolean);
  EXPECT_EQ(expected_type_of(reserved_request_parameter::sequence_end),
            expected_parameter_type::boolean);
  EXPECT_EQ(expected_type_of(reserved_request_parameter::priority),
            expected_parameter_type::unsigned_integer);
  EXPECT_EQ(expected_type_of(reserved_request_parameter::timeout),
            expected_parameter_type::unsigned_integer);
}

TEST(request_parameters, sequence_id_takes_a_non_negative_integer_or_a_string) {
  inference_request r;
  EXPECT_TRUE(apply_request_parameter("sequence_id", signed_int(42), r));
  EXPECT_EQ(std::get<uint64_t>(r.correlation_id), 42u);
  EXPECT_TRUE(apply_request_parameter("sequence_id", unsigned_int(UINT64_MAX), r));
  EXPECT_EQ(std::get<uint64_t>(r.correlation_id), UINT64_MAX);
  EXPECT_TRUE(apply_request_parameter("sequence_id", text("abc"), r));
  EXPECT_EQ(std::get<std::string>(r.correlation_id), "abc");
  EXPECT_TRUE(r.parameters.empty());
}

TEST(request_parameters, sequence_id_zero_and_empty_are_kept_as_given) {
  // Whether 0 and "" mean "no sequence" is a frontend's decision; the
  // runtime sets what it is given.
  inference_request zero;
  EXPECT_TRUE(apply_request_parameter("sequence_id", signed_int(0), zero));
  EXPECT_EQ(std::get<uint64_t>(zero.correlation_id), 0u);
  inference_request unsigned_zero;
  EXPECT_TRUE(apply_request_parameter("sequence_id", unsigned_int(0), unsigned_zero));
  EXPECT_EQ(std::get<uint64_t>(unsigned_zero.correlation_id), 0u);
  inference_request empty;
  EXPECT_TRUE(apply_request_parameter("sequence_id", text(""), empty));
  EXPECT_EQ(std::get<std::string>(empty.correlation_id), "");
}

TEST(request_parameters, sequence_id_of_another_type) {
  for (const auto& v : std::vector<request_parameter_value>{signed_int(-1), real(1.5), real(2.0),
                                                            boolean(true), none()})
    expect_wrong_type("sequence_id", v, reserved_request_parameter::sequence_id,
                      expected_parameter_type::unsigned_or_string);
}

TEST(request_parameters, sequence_flags_take_booleans) {
  inference_request r;
  EXPECT_TRUE(apply_request_parameter("sequence_start", boolean(true), r));
  EXPECT_EQ(r.flags, uint32_t{request_sequence_start});
  EXPECT_TRUE(apply_request_parameter("sequence_end", boolean(false), r));
  EXPECT_EQ(r.flags, uint32_t{request_sequence_start});
  EXPECT_TRUE(apply_request_parameter("sequence_end", boolean(true), r));
  EXPECT_EQ(r.flags, uint32_t{request_sequence_start | request_sequence_end});
  // false never clears a flag set before.
  EXPECT_TRUE(apply_request_parameter("sequence_start", boolean(false), r));
  EXPECT_EQ(r.flags, uint32_t{request_sequence_start | request_sequence_end});
  EXPECT_TRUE(r.parameters.empty());
}

TEST(request_parameters, sequence_flags_of_another_type) {
  for (const auto& v : std::vector<request_parameter_value>{
         signed_int(1), unsigned_int(1), real(1.0), text("true"), none()}) {
    expect_wrong_type("sequence_start", v, reserved_request_parameter::sequence_start,
                      expected_parameter_type::boolean);
    expect_wrong_type("sequence_end", v, reserved_request_parameter::sequence_end,
                      expected_parameter_type::boolean);
  }
}

TEST(request_parameters, priority_and_timeout_take_non_negative_integers) {
  inference_request r;
  EXPECT_TRUE(apply_request_parameter("priority", signed_int(2), r));
  EXPECT_EQ(r.priority, 2u);
  EXPECT_TRUE(apply_request_parameter("priority", unsigned_int(UINT64_MAX), r));
  EXPECT_EQ(r.priority, UINT64_MAX);
  EXPECT_TRUE(apply_request_parameter("timeout", signed_int(1500), r));
  EXPECT_EQ(r.timeout_us, 1500u);
  EXPECT_TRUE(apply_request_parameter("timeout", unsigned_int(7), r));
  EXPECT_EQ(r.timeout_us, 7u);
  EXPECT_TRUE(apply_request_parameter("timeout", signed_int(0), r));
  EXPECT_EQ(r.timeout_us, 0u);
  EXPECT_TRUE(r.parameters.empty());
}

TEST(request_parameters, priority_and_timeout_of_another_type) {
  for (const auto& v : std::vector<request_parameter_value>{
         signed_int(-3), signed_int(std::numeric_limits<int64_t>::min()), real(0.5), real(1.0),
         boolean(true), text("1"), none()}) {
    expect_wrong_type("priority", v, reserved_request_parameter::priority,
                      expected_parameter_type::unsigned_integer);
    expect_wrong_type("timeout", v, reserved_request_parameter::timeout,
                      expected_parameter_type::unsigned_integer);
  }
}

TEST(request_parameters, triton_prefixed_keys_are_reserved_whatever_their_value) {
  for (std::string_view key : {"triton_", "triton_x", "triton_enable_empty_final_response"})
    for (const auto& v : std::vector<request_parameter_value>{boolean(true), signed_int(1),
                                                              text("v"), none()}) {
      inference_request r;
      auto result = apply_request_parameter(key, v, r);
      EXPECT_EQ(result.outcome, request_parameter_outcome::reserved_prefix) << key;
      expect_untouched(r);
    }
}

TEST(request_parameters, keys_merely_like_the_prefix_are_custom) {
  inference_request r;
  EXPECT_TRUE(apply_request_parameter("tritonx", signed_int(1), r));
  EXPECT_TRUE(apply_request_parameter("my_triton_", signed_int(2), r));
  EXPECT_TRUE(apply_request_parameter("Triton_x", signed_int(3), r));
  EXPECT_TRUE(apply_request_parameter("triton", signed_int(4), r));
  ASSERT_EQ(r.parameters.size(), 4u);
  EXPECT_EQ(r.parameters[0].name, "tritonx");
  EXPECT_EQ(r.parameters[1].name, "my_triton_");
  EXPECT_EQ(r.parameters[2].name, "Triton_x");
  EXPECT_EQ(r.parameters[3].name, "triton");
}

TEST(request_parameters, custom_parameters_keep_their_type_in_order) {
  inference_request r;
  EXPECT_TRUE(apply_request_parameter("s", text("text"), r));
  EXPECT_TRUE(apply_request_parameter("i", signed_int(-7), r));
  EXPECT_TRUE(apply_request_parameter("b", boolean(false), r));
  EXPECT_TRUE(apply_request_parameter("d", real(2.5), r));
  EXPECT_TRUE(apply_request_parameter("e", text(""), r));
  EXPECT_TRUE(apply_request_parameter("Priority", signed_int(5), r));
  const auto& p = r.parameters;
  ASSERT_EQ(p.size(), 6u);
  EXPECT_EQ(p[0].name, "s");
  EXPECT_EQ(std::get<std::string>(p[0].value), "text");
  EXPECT_EQ(p[1].name, "i");
  EXPECT_EQ(std::get<int64_t>(p[1].value), -7);
  EXPECT_EQ(p[2].name, "b");
  EXPECT_EQ(std::get<bool>(p[2].value), false);
  EXPECT_EQ(p[3].name, "d");
  EXPECT_EQ(std::get<double>(p[3].value), 2.5);
  EXPECT_EQ(p[4].name, "e");
  EXPECT_EQ(std::get<std::string>(p[4].value), "");
  EXPECT_EQ(p[5].name, "Priority");
  EXPECT_EQ(std::get<int64_t>(p[5].value), 5);
  // None of them is a reserved field.
  EXPECT_EQ(r.priority, 0u);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(r.correlation_id));
}

TEST(request_parameters, custom_string_values_are_copied) {
  inference_request r;
  {
    std::string bytes("abc\0def", 7);
    EXPECT_TRUE(apply_request_parameter("k", text(bytes), r));
    EXPECT_TRUE(apply_request_parameter("sequence_id", text(bytes), r));
    bytes.assign(7, 'x');
  }
  ASSERT_EQ(r.parameters.size(), 1u);
  EXPECT_EQ(std::get<std::string>(r.parameters[0].value), std::string("abc\0def", 7));
  EXPECT_EQ(std::get<std::string>(r.correlation_id), std::string("abc\0def", 7));
}

TEST(request_parameters, custom_values_no_parameter_may_have) {
  for (const auto& v : std::vector<request_parameter_value>{unsigned_int(1), unsigned_int(UINT64_MAX),
                                                            none()}) {
    inference_request r;
    auto result = apply_request_parameter("k", v, r);
    EXPECT_FALSE(result.ok());
    EXPECT_EQ(result.outcome, request_parameter_outcome::unsupported_type);
    expect_untouched(r);
  }
}

} // namespace
} // namespace conch::runtime
