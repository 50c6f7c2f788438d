#include "conch/transports/http/kserve/codec/decode_infer_request.hpp"

#include <gtest/gtest.h>

#include "conch/transports/http/kserve/codec/test/codec_test_util.hpp"

namespace conch::transports::http::kserve::codec {
namespace {

using runtime::data_type;
using test::make_request;
using test::raw_bytes;
using test::values_of;

decoded_infer decode(const request_ptr& req, std::string model = "m", int64_t version = -1) {
  auto r = decode_infer_request(*req, std::move(model), version);
  EXPECT_TRUE(r) << r.error().to_string();
  return r ? std::move(*r) : decoded_infer{};
}

TEST(decode_infer_request, json_only_request) {
  auto d = decode(make_request(R"({"id":"r1","inputs":[
      {"name":"A","shape":[2,2],"datatype":"INT32","data":[[1,2],[3,4]]},
      {"name":"B","shape":[2],"datatype":"BOOL","data":[true,false]},
      {"name":"C","shape":[1],"datatype":"BYTES","data":["hi"]},
      {"name":"D","shape":[3],"datatype":"FP64","data":[0.5,1,2]}]})"),
                  "simple", 3);
  EXPECT_EQ(d.request.model_name, "simple");
  EXPECT_EQ(d.request.model_version, 3);
  EXPECT_EQ(d.request.id, "r1");
  EXPECT_FALSE(d.binary_request);
  EXPECT_FALSE(d.binary_data_output);
  ASSERT_EQ(d.request.inputs.size(), 4u);
  const auto& a = d.request.inputs[0];
  EXPECT_EQ(a.name, "A");
  EXPECT_EQ(a.type, data_type::int32);
  EXPECT_EQ(a.shape, (runtime::shape_type{2, 2}));
  EXPECT_EQ(values_of<int32_t>(a.data), (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(values_of<uint8_t>(d.request.inputs[1].data), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(test::text_of(d.request.inputs[2].data), test::bytes_elements({"hi"}));
  EXPECT_EQ(values_of<double>(d.request.inputs[3].data), (std::vector<double>{0.5, 1, 2}));
  EXPECT_TRUE(d.request.requested_outputs.empty());
  EXPECT_TRUE(d.outputs.empty());
}

TEST(decode_infer_request, every_datatype_in_json) {
  auto d = decode(make_request(R"({"inputs":[
      {"name":"b","shape":[1],"datatype":"BOOL","data":[true]},
      {"name":"u8","shape":[1],"datatype":"UINT8","data":[1]},
      {"name":"u16","shape":[1],"datatype":"UINT16","data":[2]},
      {"name":"u32","shape":[1],"datatype":"UINT32","data":[3]},
      {"name":"u64","shape":[1],"datatype":"UINT64","data":[4]},
      {"name":"i8","shape":[1],"datatype":"INT8","data":[-1]},
      {"name":"i16","shape":[1],"datatype":"INT16","data":[-2]},
      {"name":"i32","shape":[1],"datatype":"INT32","data":[-3]},
      {"name":"i64","shape":[1],"datatype":"INT64","data":[-4]},
      {"name":"f32","shape":[1],"datatype":"FP32","data":[1.5]},
      {"name":"f64","shape":[1],"datatype":"FP64","data":[2.5]},
      {"name":"s","shape":[1],"datatype":"BYTES","data":["x"]}]})"));
  ASSERT_EQ(d.request.inputs.size(), 12u);
  for (const auto& t : d.request.inputs)
    EXPECT_TRUE(t.validate_data()) << t.name;
  EXPECT_EQ(values_of<uint64_t>(d.request.input("u64")->data), (std::vector<uint64_t>{4}));
  EXPECT_EQ(values_of<int16_t>(d.request.input("i16")->data), (std::vector<int16_t>{-2}));
  EXPECT_EQ(values_of<float>(d.request.input("f32")->data), (std::vector<float>{1.5f}));
}

TEST(decode_infer_request, binary_inputs_alias_the_body) {
  auto a = raw_bytes<float>({1, 2, 3, 4});
  auto b = raw_bytes<int64_t>({-5, 6});
  auto req = make_request(R"({"inputs":[
      {"name":"A","shape":[1,4],"datatype":"FP32","parameters":{"binary_data_size":16}},
      {"name":"B","shape":[2],"datatype":"INT64","parameters":{"binary_data_size":16}}]})",
                          a + b, true);
  auto json_size = req->body.size() - 32;
  auto d = decode(req);
  EXPECT_TRUE(d.binary_request);
  ASSERT_EQ(d.request.inputs.size(), 2u);
  const auto& ta = d.request.inputs[0];
  const auto& tb = d.request.inputs[1];
  EXPECT_EQ(ta.data.data(), req->body.data() + json_size);
  EXPECT_EQ(tb.data.data(), req->body.data() + json_size + 16);
  EXPECT_EQ(ta.data.owner(), req->body.owner());
  EXPECT_EQ(values_of<float>(ta.data), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(values_of<int64_t>(tb.data), (std::vector<int64_t>{-5, 6}));
}

TEST(decode_infer_request, tensors_keep_the_body_alive) {
  runtime::tensor kept;
  {
    auto req = make_request(
      R"({"inputs":[{"name":"A","shape":[2],"datatype":"INT32","parameters":{"binary_data_size":8}}]})",
      raw_bytes<int32_t>({7, 8}), true);
    auto d = decode(req);
    kept = d.request.inputs.at(0);
  }
  EXPECT_EQ(values_of<int32_t>(kept.data), (std::vector<int32_t>{7, 8}));
}

TEST(decode_infer_request, mixed_json_and_binary_inputs) {
  auto req = make_request(R"({"inputs":[
      {"name":"J0","shape":[2],"datatype":"INT32","data":[1,2]},
      {"name":"B0","shape":[2],"datatype":"BYTES","parameters":{"binary_data_size":11}},
      {"name":"J1","shape":[1],"datatype":"BYTES","data":["z"]},
      {"name":"B1","shape":[1],"datatype":"FP16","parameters":{"binary_data_size":2}},
      {"name":"E","shape":[0],"datatype":"FP32","parameters":{"binary_data_size":0}}]})",
                          test::bytes_elements({"ab", "c"}) + std::string{"\x00\x3c", 2}, true);
  auto d = decode(req);
  ASSERT_EQ(d.request.inputs.size(), 5u);
  EXPECT_EQ(values_of<int32_t>(d.request.inputs[0].data), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(test::text_of(d.request.inputs[1].data), test::bytes_elements({"ab", "c"}));
  EXPECT_EQ(test::text_of(d.request.inputs[2].data), test::bytes_elements({"z"}));
  EXPECT_EQ(test::text_of(d.request.inputs[3].data), std::string("\x00\x3c", 2));
  EXPECT_EQ(d.request.inputs[4].data.size(), 0u);
}

TEST(decode_infer_request, zero_element_inputs_need_no_data) {
  auto d = decode(make_request(R"({"inputs":[{"name":"A","shape":[0,3],"datatype":"FP16","data":[]}]})"));
  ASSERT_EQ(d.request.inputs.size(), 1u);
  EXPECT_EQ(d.request.inputs[0].data.size(), 0u);
}

TEST(decode_infer_request, listed_outputs_and_their_encoding) {
  auto d = decode(make_request(R"({"inputs":[],"parameters":{"binary_data_output":true},
      "outputs":[{"name":"O0","parameters":{"binary_data":false}},
                 {"name":"O1","parameters":{"classification":3,"binary_data":true}},
                 {"name":"O2"},
                 {"name":"O3","parameters":{"shared_memory_region":"r","shared_memory_byte_size":64,
                                             "shared_memory_offset":8,"binary_data":false}}]})"));
  EXPECT_EQ(d.request.requested_outputs, (std::vector<std::string>{"O0", "O1", "O2", "O3"}));
  ASSERT_EQ(d.outputs.size(), 4u);
  EXPECT_FALSE(d.outputs[0].binary);
  EXPECT_EQ(d.outputs[1].classification, 3u);
  EXPECT_TRUE(d.outputs[1].binary);
  EXPECT_FALSE(d.outputs[2].binary); // a listed output defaults to JSON
  ASSERT_TRUE(d.outputs[3].shared_memory);
  EXPECT_EQ(d.outputs[3].shared_memory->region, "r");
  EXPECT_EQ(d.outputs[3].shared_memory->offset, 8u);
  EXPECT_EQ(d.outputs[3].shared_memory->byte_size, 64u);
  EXPECT_TRUE(d.binary_data_output);
  EXPECT_EQ(d.listed_output("O1"), &d.outputs[1]);
  EXPECT_EQ(d.listed_output("other"), nullptr);
}

TEST(decode_infer_request, request_parameters_reach_the_request) {
  auto d = decode(make_request(R"({"id":"","inputs":[],"parameters":{"sequence_id":"s-1",
      "sequence_start":true,"sequence_end":false,"priority":1,"timeout":100,"custom":"v"}})"));
  EXPECT_EQ(d.request.id, "");
  EXPECT_EQ(std::get<std::string>(d.request.correlation_id), "s-1");
  EXPECT_EQ(d.request.flags, runtime::request_sequence_start);
  EXPECT_EQ(d.request.priority, 1u);
  EXPECT_EQ(d.request.timeout_us, 100u);
  ASSERT_EQ(d.request.parameters.size(), 1u);
  EXPECT_EQ(std::get<std::string>(d.request.parameters[0].value), "v");
}

TEST(decode_infer_request, shared_memory_inputs_are_listed_without_data) {
  auto d = decode(make_request(R"({"inputs":[
      {"name":"A","shape":[1],"datatype":"INT32","data":[1]},
      {"name":"S","shape":[4],"datatype":"FP32","parameters":{"shared_memory_region":"in0",
       "shared_memory_byte_size":16,"shared_memory_offset":32}}]})"));
  ASSERT_EQ(d.request.inputs.size(), 2u);
  EXPECT_EQ(d.request.inputs[1].name, "S");
  EXPECT_EQ(d.request.inputs[1].data.size(), 0u);
  ASSERT_EQ(d.shared_memory_inputs.size(), 1u);
  EXPECT_EQ(d.shared_memory_inputs[0].input_index, 1u);
  EXPECT_EQ(d.shared_memory_inputs[0].ref.region, "in0");
  EXPECT_EQ(d.shared_memory_inputs[0].ref.offset, 32u);
  EXPECT_EQ(d.shared_memory_inputs[0].ref.byte_size, 16u);
}

TEST(decode_infer_request, raw_binary_request_is_one_unnamed_input) {
  auto req = make_request("", "0123", false);
  req->headers.add("Inference-Header-Content-Length", "0");
  auto d = decode(req);
  EXPECT_TRUE(d.raw_binary);
  EXPECT_TRUE(d.binary_request);
  EXPECT_TRUE(d.binary_data_output);
  ASSERT_EQ(d.request.inputs.size(), 1u);
  EXPECT_EQ(d.request.inputs[0].data.data(), req->body.data());
  EXPECT_EQ(d.request.inputs[0].data.size(), 4u);
}

} // namespace
} // namespace conch::transports::http::kserve::codec
