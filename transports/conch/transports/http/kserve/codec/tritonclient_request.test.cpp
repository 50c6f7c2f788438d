// Requests exactly as tritonclient's Python HTTP client builds them
// (json.dumps of the request, Inference-Header-Content-Length, the binary
// inputs appended in input order; spec §5.1), decoded and answered, and the
// answer read back the way that client reads it.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include "conch/runtime/output_labels.hpp"
#include "conch/transports/http/kserve/codec/decode_infer_request.hpp"
#include "conch/transports/http/kserve/codec/encode_infer_response.hpp"
#include "conch/transports/http/kserve/codec/test/codec_test_util.hpp"

namespace conch::transports::http::kserve::codec {
namespace {

using runtime::data_type;
using test::raw_bytes;
using test::values_of;

std::vector<int32_t> iota16(int32_t start) {
  std::vector<int32_t> v(16);
  for (int32_t i = 0; i < 16; ++i)
    v[i] = start + i;
  return v;
}

// json.dumps([...]) of a list of ints: ", " between items.
std::string python_list(const std::vector<int32_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i)
    out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

TEST(tritonclient_request, simple_model_with_binary_and_json_inputs) {
  // client.infer("simple", [INPUT0 binary, INPUT1 JSON],
  //              outputs=[OUTPUT0 binary_data=True, OUTPUT1 binary_data=False],
  //              request_id="1", sequence_id=7, sequence_start=True, priority=1,
  //              timeout=5000, parameters={"flag": True, "ratio": 0.5})
  std::string json =
    R"({"id": "1", "parameters": {"sequence_id": 7, "sequence_start": true, "sequence_end": false, )"
    R"("priority": 1, "timeout": 5000, "flag": true, "ratio": 0.5}, "inputs": [)"
    R"({"name": "INPUT0", "shape": [1, 16], "datatype": "INT32", "parameters": {"binary_data_size": 64}}, )"
    R"({"name": "INPUT1", "shape": [1, 16], "datatype": "INT32", "data": )"
    + python_list(iota16(100)) + R"(}], "outputs": [)"
    R"({"name": "OUTPUT0", "parameters": {"binary_data": true}}, )"
    R"({"name": "OUTPUT1", "parameters": {"binary_data": false}}]})";
  auto req = test::make_request(json, raw_bytes(iota16(0)), true);
  req->headers.set("Content-Type", "application/octet-stream");

  auto d = decode_infer_request(*req, "simple", -1);
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_EQ(d->request.id, "1");
  EXPECT_EQ(std::get<uint64_t>(d->request.correlation_id), 7u);
  EXPECT_EQ(d->request.flags, runtime::request_sequence_start);
  EXPECT_EQ(d->request.priority, 1u);
  EXPECT_EQ(d->request.timeout_us, 5000u);
  ASSERT_EQ(d->request.parameters.size(), 2u);
  EXPECT_EQ(std::get<bool>(d->request.parameters[0].value), true);
  EXPECT_EQ(std::get<double>(d->request.parameters[1].value), 0.5);
  ASSERT_EQ(d->request.inputs.size(), 2u);
  EXPECT_EQ(d->request.inputs[0].data.data(), req->body.data() + json.size());
  EXPECT_EQ(values_of<int32_t>(d->request.inputs[0].data), iota16(0));
  EXPECT_EQ(values_of<int32_t>(d->request.inputs[1].data), iota16(100));
  EXPECT_EQ(d->request.requested_outputs, (std::vector<std::string>{"OUTPUT0", "OUTPUT1"}));

  // The model answers; the client splits the body at the header length.
  runtime::inference_response r;
  r.model_name = "simple";
  r.model_version = 1;
  r.id = d->request.id;
  r.outputs = {test::make_tensor("OUTPUT0", data_type::int32, {1, 16}, raw_bytes(iota16(100))),
               test::make_tensor("OUTPUT1", data_type::int32, {1, 16}, raw_bytes(iota16(-100)))};
  auto answer = encode_infer_response(r, *d);
  ASSERT_EQ(answer.status, 200);
  auto body = test::body_text(answer);
  auto json_length = std::stoul(*answer.headers.find("Inference-Header-Content-Length"));
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(body.data(), json_length).HasParseError());
  EXPECT_STREQ(doc["id"].GetString(), "1");
  EXPECT_STREQ(doc["model_version"].GetString(), "1");
  const auto& outs = doc["outputs"];
  ASSERT_EQ(outs.Size(), 2u);
  EXPECT_EQ(outs[0]["parameters"]["binary_data_size"].GetUint64(), 64u);
  EXPECT_EQ(body.substr(json_length), raw_bytes(iota16(100)));
  ASSERT_EQ(outs[1]["data"].Size(), 16u);
  EXPECT_EQ(outs[1]["data"][0].GetInt(), -100);
}

TEST(tritonclient_request, no_outputs_listed_asks_for_binary_outputs) {
  // client.infer("identity", [INPUT0 BYTES binary, INPUT1 FP16 binary]) with
  // no outputs: the client adds binary_data_output true.
  std::string strings = test::bytes_elements({"hello", "wörld"});
  std::string half = std::string{"\x00\x3c\x00\x40", 4}; // 1.0, 2.0
  std::string json =
    R"({"inputs": [{"name": "INPUT0", "shape": [2], "datatype": "BYTES", "parameters": )"
    R"({"binary_data_size": )" + std::to_string(strings.size()) + R"(}}, )"
    R"({"name": "INPUT1", "shape": [1, 2], "datatype": "FP16", "parameters": {"binary_data_size": 4}}], )"
    R"("parameters": {"binary_data_output": true}})";
  auto req = test::make_request(json, strings + half, true);
  auto d = decode_infer_request(*req, "identity", 2);
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_TRUE(d->binary_data_output);
  EXPECT_TRUE(d->binary_request);
  EXPECT_EQ(d->request.model_version, 2);
  EXPECT_EQ(test::text_of(d->request.inputs[0].data), strings);
  EXPECT_EQ(test::text_of(d->request.inputs[1].data), half);

  runtime::inference_response r;
  r.model_name = "identity";
  r.model_version = 2;
  r.outputs = {d->request.inputs[0], d->request.inputs[1]};
  r.outputs[0].name = "OUTPUT0";
  r.outputs[1].name = "OUTPUT1";
  auto answer = encode_infer_response(r, *d);
  ASSERT_EQ(answer.status, 200);
  ASSERT_EQ(answer.body.size(), 3u);
  // The identity model's outputs are the request's own bytes: still no copy.
  EXPECT_EQ(answer.body[1].data(), req->body.data() + json.size());
  EXPECT_EQ(test::text_of(answer.body[2]), half);
  EXPECT_EQ(test::text_of(answer.body[0]),
            R"({"model_name":"identity","model_version":"2","outputs":[)"
            R"({"name":"OUTPUT0","datatype":"BYTES","shape":[2],"parameters":{"binary_data_size":)"
            + std::to_string(strings.size()) + R"(}},)"
            R"({"name":"OUTPUT1","datatype":"FP16","shape":[1,2],"parameters":{"binary_data_size":4}}]})");
}

TEST(tritonclient_request, classification_request) {
  // InferRequestedOutput("OUTPUT0", binary_data=False, class_count=2)
  std::string json =
    R"({"inputs": [{"name": "INPUT0", "shape": [1, 4], "datatype": "FP32", "data": [0.1, 0.9, 0.5, 0.3]}], )"
    R"("outputs": [{"name": "OUTPUT0", "parameters": {"classification": 2, "binary_data": false}}]})";
  auto d = decode_infer_request(*test::make_request(json), "cls", -1);
  ASSERT_TRUE(d) << d.error().to_string();
  d->model_batches = true;
  auto labels = std::make_shared<runtime::output_labels>();
  labels->add("OUTPUT0", {"a", "b", "c", "d"});
  runtime::inference_response r;
  r.labels = labels;
  r.model_name = "cls";
  r.model_version = 1;
  r.outputs = {d->request.inputs[0]};
  r.outputs[0].name = "OUTPUT0";
  auto answer = encode_infer_response(r, *d);
  EXPECT_EQ(test::body_text(answer),
            R"({"model_name":"cls","model_version":"1","outputs":[)"
            R"({"name":"OUTPUT0","datatype":"BYTES","shape":[1,2],"data":["0.900000:1:b","0.500000:2:c"]}]})");
}

} // namespace
} // namespace conch::transports::http::kserve::codec
