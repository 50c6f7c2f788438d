#include "conch/transports/http/kserve/codec/request_parameters.hpp"

#include <gtest/gtest.h>

#include "conch/transports/http/kserve/codec/json_reader.hpp"

namespace conch::transports::http::kserve::codec {
namespace {

using runtime::errc;

runtime::result<decoded_infer> read(const std::string& json) {
  scratch_document scratch;
  auto& doc = scratch.doc();
  auto st = scratch.parse(json);
  EXPECT_TRUE(st) << st.to_string();
  decoded_infer out;
  if (auto r = read_request_parameters(doc, out); !r)
    return r;
  return out;
}

runtime::status error_of(const std::string& json) {
  auto r = read(json);
  EXPECT_FALSE(r) << json;
  return r ? runtime::status::ok() : r.error();
}

TEST(request_parameters, numeric_sequence_id_with_flags) {
  auto r = read(R"({"sequence_id":42,"sequence_start":true,"sequence_end":false})");
  ASSERT_TRUE(r);
  EXPECT_EQ(std::get<uint64_t>(r->request.correlation_id), 42u);
  EXPECT_EQ(r->request.flags, runtime::request_sequence_start);
  EXPECT_TRUE(r->request.parameters.empty());
  auto end = read(R"({"sequence_id":18446744073709551615,"sequence_start":false,"sequence_end":true})");
  ASSERT_TRUE(end);
  EXPECT_EQ(std::get<uint64_t>(end->request.correlation_id), 18446744073709551615u);
  EXPECT_EQ(end->request.flags, runtime::request_sequence_end);
}

TEST(request_parameters, string_sequence_id) {
  auto r = read(R"({"sequence_id":"abc","sequence_start":true,"sequence_end":true})");
  ASSERT_TRUE(r);
  EXPECT_EQ(std::get<std::string>(r->request.correlation_id), "abc");
  EXPECT_EQ(r->request.flags, runtime::request_sequence_start | runtime::request_sequence_end);
}

TEST(request_parameters, zero_and_empty_sequence_ids_mean_none) {
  for (auto json : {R"({"sequence_id":0})", R"({"sequence_id":""})"}) {
    auto r = read(json);
    ASSERT_TRUE(r);
    EXPECT_TRUE(std::holds_alternative<std::monostate>(r->request.correlation_id)) << json;
  }
}

TEST(request_parameters, priority_timeout_and_binary_data_output) {
  auto r = read(R"({"priority":2,"timeout":1500,"binary_data_output":true})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->request.priority, 2u);
  EXPECT_EQ(r->request.timeout_us, 1500u);
  EXPECT_TRUE(r->binary_data_output);
  EXPECT_TRUE(r->request.parameters.empty());
}

TEST(request_parameters, reserved_keys_of_the_wrong_type) {
  struct bad_case {
    const char* json;
    const char* message;
  };
  const bad_case cases[] = {
    {R"({"sequence_id":-1})", "Unable to parse 'sequence_id': expected an unsigned integer or a string"},
    {R"({"sequence_id":1.5})", "Unable to parse 'sequence_id': expected an unsigned integer or a string"},
    {R"({"sequence_start":1})", "Unable to parse 'sequence_start': expected a boolean"},
    {R"({"sequence_end":"true"})", "Unable to parse 'sequence_end': expected a boolean"},
    {R"({"priority":-3})", "Unable to parse 'priority': expected an unsigned integer"},
    {R"({"timeout":0.5})", "Unable to parse 'timeout': expected an unsigned integer"},
    {R"({"binary_data_output":"yes"})", "Unable to parse 'binary_data_output': expected a boolean"},
  };
  for (const auto& c : cases) {
    auto st = error_of(c.json);
    EXPECT_EQ(st.code(), errc::invalid_argument) << c.json;
    EXPECT_EQ(st.message(), c.message);
  }
}

TEST(request_parameters, triton_prefixed_keys_are_refused) {
  for (auto json : {R"({"triton_enable_empty_final_response":true})", R"({"triton_":1})"}) {
    auto st = error_of(json);
    EXPECT_EQ(st.code(), errc::invalid_argument);
    EXPECT_EQ(st.message(), "parameter keys starting with 'triton_' are reserved for Triton usage "
                            "and should not be specified.");
  }
  EXPECT_TRUE(read(R"({"tritonx":1,"my_triton_":2})"));
}

TEST(request_parameters, custom_parameters_keep_their_json_type_in_order) {
  auto r = read(R"({"s":"text","i":-7,"b":false,"d":2.5,"u":18446744073709551615,"w":3})");
  ASSERT_TRUE(r);
  const auto& p = r->request.parameters;
  ASSERT_EQ(p.size(), 6u);
  EXPECT_EQ(p[0].name, "s");
  EXPECT_EQ(std::get<std::string>(p[0].value), "text");
  EXPECT_EQ(std::get<int64_t>(p[1].value), -7);
  EXPECT_EQ(std::get<bool>(p[2].value), false);
  EXPECT_EQ(std::get<double>(p[3].value), 2.5);
  // Beyond int64 an integer can only be carried as a double.
  EXPECT_EQ(std::get<double>(p[4].value), 18446744073709551615.0);
  EXPECT_EQ(std::get<int64_t>(p[5].value), 3);
}

TEST(request_parameters, custom_parameters_of_other_types_are_refused) {
  for (auto json : {R"({"k":[1]})", R"({"k":{"a":1}})", R"({"k":null})"}) {
    auto st = error_of(json);
    EXPECT_EQ(st.code(), errc::invalid_argument);
    EXPECT_EQ(st.message(),
              "parameter 'k' has invalid type. It should be either 'int', 'bool', or 'string'.");
  }
}

TEST(request_parameters, parameters_must_be_an_object) {
  auto st = error_of("[1]");
  EXPECT_EQ(st.message(), "Unable to parse 'parameters': expected an object");
}

} // namespace
} // namespace conch::transports::http::kserve::codec
