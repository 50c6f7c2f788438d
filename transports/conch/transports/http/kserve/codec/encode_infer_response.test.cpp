#include "conch/transports/http/kserve/codec/encode_infer_response.hpp"

#include <gtest/gtest.h>

#include "conch/runtime/output_labels.hpp"

#include "conch/transports/http/kserve/codec/encode_error.hpp"
#include "conch/transports/http/kserve/codec/test/codec_test_util.hpp"

namespace conch::transports::http::kserve::codec {
namespace {

using runtime::data_type;
using test::make_tensor;
using test::raw_bytes;
using test::text_of;

runtime::inference_response make_response(std::vector<runtime::tensor> outputs) {
  runtime::inference_response r;
  r.model_name = "simple";
  r.model_version = 1;
  r.outputs = std::move(outputs);
  r.final = true;
  return r;
}

output_encoding listed(std::string name, bool binary, uint64_t classification = 0) {
  output_encoding o;
  o.name = std::move(name);
  o.binary = binary;
  o.classification = classification;
  return o;
}

std::string header(const response& r, std::string_view name) {
  const auto* v = r.headers.find(name);
  return v == nullptr ? "<absent>" : *v;
}

TEST(encode_infer_response, json_outputs) {
  auto r = make_response({make_tensor("OUT0", data_type::int32, {1, 2}, raw_bytes<int32_t>({1, 2})),
                          make_tensor("OUT1", data_type::bytes, {1}, test::bytes_elements({"hi"}))});
  r.id = "req-7";
  auto answer = encode_infer_response(r, decoded_infer{});
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(header(answer, "Content-Type"), "application/json");
  EXPECT_EQ(header(answer, "Inference-Header-Content-Length"), "<absent>");
  ASSERT_EQ(answer.body.size(), 1u);
  EXPECT_EQ(text_of(answer.body[0]),
            R"({"id":"req-7","model_name":"simple","model_version":"1","outputs":[)"
            R"({"name":"OUT0","datatype":"INT32","shape":[1,2],"data":[1,2]},)"
            R"({"name":"OUT1","datatype":"BYTES","shape":[1],"data":["hi"]}]})");
}

TEST(encode_infer_response, empty_id_is_left_out_and_parameters_are_typed) {
  auto r = make_response({});
  r.parameters = {{"s", std::string{"v"}}, {"i", int64_t{-3}}, {"b", true}, {"d", 0.25}};
  auto answer = encode_infer_response(r, decoded_infer{});
  EXPECT_EQ(test::body_text(answer),
            R"({"model_name":"simple","model_version":"1",)"
            R"("parameters":{"s":"v","i":-3,"b":true,"d":0.25},"outputs":[]})");
}

TEST(encode_infer_response, binary_outputs_alias_the_tensors) {
  auto out0 = make_tensor("OUT0", data_type::fp32, {2}, raw_bytes<float>({1.5f, 2.5f}));
  auto out1 = make_tensor("OUT1", data_type::fp16, {1}, std::string{"\x00\x3c", 2});
  auto r = make_response({out0, out1});
  decoded_infer how;
  how.binary_data_output = true;
  auto answer = encode_infer_response(r, how);
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(header(answer, "Content-Type"), "application/octet-stream");
  std::string json = R"({"model_name":"simple","model_version":"1","outputs":[)"
                     R"({"name":"OUT0","datatype":"FP32","shape":[2],"parameters":{"binary_data_size":8}},)"
                     R"({"name":"OUT1","datatype":"FP16","shape":[1],"parameters":{"binary_data_size":2}}]})";
  EXPECT_EQ(header(answer, "Inference-Header-Content-Length"), std::to_string(json.size()));
  ASSERT_EQ(answer.body.size(), 3u);
  EXPECT_EQ(text_of(answer.body[0]), json);
  EXPECT_EQ(answer.body[1].data(), out0.data.data());
  EXPECT_EQ(answer.body[1].size(), 8u);
  EXPECT_EQ(answer.body[1].owner(), out0.data.owner());
  EXPECT_EQ(answer.body[2].data(), out1.data.data());
}

TEST(encode_infer_response, listed_outputs_override_the_default_kind) {
  auto r = make_response({make_tensor("A", data_type::int8, {1}, raw_bytes<int8_t>({-1})),
                          make_tensor("B", data_type::int8, {1}, raw_bytes<int8_t>({2})),
                          make_tensor("C", data_type::int8, {0}, "")});
  decoded_infer how;
  how.binary_data_output = false;
  how.outputs = {listed("B", true), listed("C", true)};
  auto answer = encode_infer_response(r, how);
  EXPECT_EQ(header(answer, "Content-Type"), "application/octet-stream");
  // Zero-byte binary outputs add no buffer.
  ASSERT_EQ(answer.body.size(), 2u);
  EXPECT_EQ(text_of(answer.body[0]),
            R"({"model_name":"simple","model_version":"1","outputs":[)"
            R"({"name":"A","datatype":"INT8","shape":[1],"data":[-1]},)"
            R"({"name":"B","datatype":"INT8","shape":[1],"parameters":{"binary_data_size":1}},)"
            R"({"name":"C","datatype":"INT8","shape":[0],"parameters":{"binary_data_size":0}}]})");
  EXPECT_EQ(text_of(answer.body[1]), std::string(1, '\2'));
}

TEST(encode_infer_response, every_datatype_round_trips_through_json) {
  auto r = make_response({
    make_tensor("b", data_type::bool_, {2}, std::string{"\1\0", 2}),
    make_tensor("u8", data_type::uint8, {1}, raw_bytes<uint8_t>({8})),
    make_tensor("u16", data_type::uint16, {1}, raw_bytes<uint16_t>({16})),
    make_tensor("u32", data_type::uint32, {1}, raw_bytes<uint32_t>({32})),
    make_tensor("u64", data_type::uint64, {1}, raw_bytes<uint64_t>({64})),
    make_tensor("i8", data_type::int8, {1}, raw_bytes<int8_t>({-8})),
    make_tensor("i16", data_type::int16, {1}, raw_bytes<int16_t>({-16})),
    make_tensor("i32", data_type::int32, {1}, raw_bytes<int32_t>({-32})),
    make_tensor("i64", data_type::int64, {1}, raw_bytes<int64_t>({-64})),
    make_tensor("f32", data_type::fp32, {1}, raw_bytes<float>({0.5f})),
    make_tensor("f64", data_type::fp64, {1}, raw_bytes<double>({0.25})),
    make_tensor("s", data_type::bytes, {1}, test::bytes_elements({"x"})),
  });
  auto body = test::body_text(encode_infer_response(r, decoded_infer{}));
  for (auto expected : {R"("name":"b","datatype":"BOOL","shape":[2],"data":[true,false])",
                        R"("name":"u8","datatype":"UINT8","shape":[1],"data":[8])",
                        R"("name":"u16","datatype":"UINT16","shape":[1],"data":[16])",
                        R"("name":"u32","datatype":"UINT32","shape":[1],"data":[32])",
                        R"("name":"u64","datatype":"UINT64","shape":[1],"data":[64])",
                        R"("name":"i8","datatype":"INT8","shape":[1],"data":[-8])",
                        R"("name":"i16","datatype":"INT16","shape":[1],"data":[-16])",
                        R"("name":"i32","datatype":"INT32","shape":[1],"data":[-32])",
                        R"("name":"i64","datatype":"INT64","shape":[1],"data":[-64])",
                        R"("name":"f32","datatype":"FP32","shape":[1],"data":[0.5])",
                        R"("name":"f64","datatype":"FP64","shape":[1],"data":[0.25])",
                        R"("name":"s","datatype":"BYTES","shape":[1],"data":["x"])"})
    EXPECT_NE(body.find(expected), std::string::npos) << expected;
}

TEST(encode_infer_response, fp16_as_json_is_a_400) {
  auto r = make_response({make_tensor("H", data_type::fp16, {1}, std::string(2, '\0'))});
  auto answer = encode_infer_response(r, decoded_infer{});
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(header(answer, "Content-Type"), "application/json");
  EXPECT_EQ(test::body_text(answer),
            R"({"error":"sending FP16 data via JSON is not supported. Please use the binary data format for output"})");
}

TEST(encode_infer_response, classification_outputs_become_bytes) {
  auto r = make_response({make_tensor("P", data_type::fp32, {1, 3}, raw_bytes<float>({0.2f, 0.7f, 0.1f})),
                          make_tensor("Q", data_type::int32, {3}, raw_bytes<int32_t>({1, 3, 2}))});
  decoded_infer how;
  how.model_batches = true;
  how.outputs = {listed("P", false, 2), listed("Q", true, 1)};
  auto labels = std::make_shared<runtime::output_labels>();
  labels->add("P", {"zero", "one"});
  r.labels = labels;
  auto answer = encode_infer_response(r, how);
  ASSERT_EQ(answer.status, 200);
  // Q is batched too: its first dimension, 3, is the batch; each entry has one class.
  auto q_all = test::bytes_elements({"1:0", "3:0", "2:0"});
  std::string json = R"({"model_name":"simple","model_version":"1","outputs":[)"
                     R"({"name":"P","datatype":"BYTES","shape":[1,2],"data":["0.700000:1:one","0.200000:0:zero"]},)"
                     R"({"name":"Q","datatype":"BYTES","shape":[3,1],"parameters":{"binary_data_size":)"
                     + std::to_string(q_all.size()) + "}}]}";
  ASSERT_EQ(answer.body.size(), 2u);
  EXPECT_EQ(text_of(answer.body[0]), json);
  EXPECT_EQ(text_of(answer.body[1]), q_all);
}

TEST(encode_infer_response, classification_errors_are_answered) {
  auto r = make_response({make_tensor("S", data_type::bytes, {1}, test::bytes_elements({"a"}))});
  decoded_infer how;
  how.outputs = {listed("S", false, 1)};
  auto answer = encode_infer_response(r, how);
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(test::body_text(answer),
            R"({"error":"class result not available for output due to unsupported type 'BYTES'"})");
}

TEST(encode_infer_response, shared_memory_outputs_carry_no_data) {
  auto r = make_response({make_tensor("O", data_type::int32, {1}, raw_bytes<int32_t>({5}))});
  decoded_infer how;
  how.outputs = {listed("O", false)};
  how.outputs[0].shared_memory = shared_memory_ref{"region", 0, 4};
  auto answer = encode_infer_response(r, how);
  EXPECT_EQ(header(answer, "Content-Type"), "application/json");
  EXPECT_EQ(test::body_text(answer), R"({"model_name":"simple","model_version":"1","outputs":[)"
                                     R"({"name":"O","datatype":"INT32","shape":[1]}]})");
}

TEST(encode_infer_response, raw_binary_requests_get_binary_outputs) {
  auto r = make_response({make_tensor("O", data_type::int32, {1}, raw_bytes<int32_t>({5}))});
  decoded_infer how;
  how.raw_binary = true;
  how.outputs = {listed("O", false)};
  auto answer = encode_infer_response(r, how);
  EXPECT_EQ(header(answer, "Content-Type"), "application/octet-stream");
  EXPECT_EQ(answer.body.size(), 2u);
}

TEST(encode_infer_response, a_failed_response_is_an_error_body) {
  auto r = make_response({});
  r.error = runtime::unavailable("'m' version 1 is not at ready state");
  auto answer = encode_infer_response(r, decoded_infer{});
  EXPECT_EQ(answer.status, 503);
  EXPECT_EQ(header(answer, "Content-Type"), "application/json");
  EXPECT_EQ(test::body_text(answer), R"({"error":"'m' version 1 is not at ready state"})");
}

TEST(encode_infer_response, malformed_output_bytes_are_internal) {
  auto r = make_response({make_tensor("O", data_type::int32, {2}, raw_bytes<int32_t>({5}))});
  auto answer = encode_infer_response(r, decoded_infer{});
  EXPECT_EQ(answer.status, 500);
  EXPECT_EQ(test::body_text(answer),
            R"({"error":"output tensor shape does not match size of output for 'O'"})");
}

TEST(encode_error, status_and_body_follow_the_mapping) {
  struct error_case {
    runtime::status st;
    int http;
  };
  const error_case cases[] = {
    {runtime::internal_error("x"), 500},      {runtime::not_found("x"), 404},
    {runtime::invalid_argument("x"), 400},    {runtime::unavailable("x"), 503},
    {runtime::unsupported("x"), 501},         {runtime::already_exists("x"), 400},
    {runtime::cancelled("x"), 400},           {runtime::status{runtime::errc::unknown, "x"}, 400},
  };
  for (const auto& c : cases) {
    auto answer = encode_error(c.st);
    EXPECT_EQ(answer.status, c.http) << c.st.to_string();
    EXPECT_EQ(header(answer, "Content-Type"), "application/json");
    EXPECT_EQ(test::body_text(answer), R"({"error":"x"})");
  }
  EXPECT_EQ(test::body_text(encode_error(runtime::invalid_argument("say \"hi\"\n"))),
            R"({"error":"say \"hi\"\n"})");
  EXPECT_EQ(encode_error(runtime::status::ok()).status, 500);
}

} // namespace
} // namespace conch::transports::http::kserve::codec
