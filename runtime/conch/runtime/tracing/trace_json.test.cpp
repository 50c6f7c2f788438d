#include "conch/runtime/tracing/trace_json.hpp"

#include <rapidjson/document.h>

#include <gtest/gtest.h>

#include "conch/runtime/bytes_elements.hpp"

namespace conch::runtime::tracing {
namespace {

tensor int32_tensor(std::string name, std::vector<int32_t> values) {
  tensor t;
  t.name = std::move(name);
  t.type = data_type::int32;
  t.shape = {1, static_cast<int64_t>(values.size())};
  t.data = buffer::copy_of(values.data(), values.size() * sizeof(int32_t));
  return t;
}

TEST(trace_json, writes_tritons_flat_objects_with_the_header_before_request_start) {
  trace_record r;
  r.id = 7;
  r.model_name = "simple";
  r.model_version = 1;
  r.request_id = "req\"1";
  r.level = trace_timestamps | trace_tensors;
  r.stamps = {{"HTTP_RECV_START", 10}, {"HTTP_RECV_END", 11}, {"REQUEST_START", 12},
              {"QUEUE_START", 13}, {"REQUEST_END", 20}, {"HTTP_SEND_START", 21}};
  r.tensors.push_back({"TENSOR_QUEUE_INPUT", int32_tensor("INPUT0", {1, -2, 3})});
  trace_record child;
  child.id = 8;
  child.parent_id = 7;
  child.model_name = "step";
  child.model_version = 3;
  child.stamps = {{"REQUEST_START", 14}};
  r.children.push_back(child);

  auto text = "[" + trace_json(r) + "]";
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(text.c_str()).HasParseError()) << text;
  ASSERT_TRUE(doc.IsArray());
  ASSERT_EQ(doc.Size(), 10u) << text;
  EXPECT_STREQ(doc[0]["timestamps"][0]["name"].GetString(), "HTTP_RECV_START");
  EXPECT_EQ(doc[0]["timestamps"][0]["ns"].GetUint64(), 10u);
  EXPECT_EQ(doc[0]["id"].GetUint64(), 7u);
  // The header comes right before REQUEST_START.
  const auto& header = doc[2];
  EXPECT_STREQ(header["model_name"].GetString(), "simple");
  EXPECT_EQ(header["model_version"].GetInt64(), 1);
  EXPECT_STREQ(header["request_id"].GetString(), "req\"1");
  EXPECT_FALSE(header.HasMember("parent_id"));
  EXPECT_STREQ(doc[3]["timestamps"][0]["name"].GetString(), "REQUEST_START");
  const auto& tensor = doc[7];
  EXPECT_STREQ(tensor["activity"].GetString(), "TENSOR_QUEUE_INPUT");
  EXPECT_STREQ(tensor["tensor"]["data"].GetString(), "1,-2,3");
  EXPECT_STREQ(tensor["tensor"]["shape"].GetString(), "1,3");
  EXPECT_STREQ(tensor["tensor"]["dtype"].GetString(), "INT32");
  const auto& child_header = doc[8];
  EXPECT_EQ(child_header["id"].GetUint64(), 8u);
  EXPECT_EQ(child_header["parent_id"].GetUint64(), 7u);
  EXPECT_FALSE(child_header.HasMember("request_id"));
}

TEST(trace_json, renders_each_type_of_tensor) {
  tensor b;
  b.type = data_type::bytes;
  b.shape = {2};
  b.data = serialize_bytes_elements({"ab", "c"});
  EXPECT_EQ(tensor_data_text(b), "\"ab\",\"c\"");
  tensor f;
  f.type = data_type::fp32;
  std::vector<float> fv{0.5f, -1.0f};
  f.data = buffer::copy_of(fv.data(), 8);
  EXPECT_EQ(tensor_data_text(f), "0.5,-1");
  tensor h;
  h.type = data_type::fp16;
  std::vector<uint16_t> hv{0x3c00, 0xc000};  // 1.0, -2.0
  h.data = buffer::copy_of(hv.data(), 4);
  EXPECT_EQ(tensor_data_text(h), "1,-2");
  tensor flag;
  flag.type = data_type::bool_;
  std::vector<uint8_t> bv{1, 0};
  flag.data = buffer::copy_of(bv.data(), 2);
  EXPECT_EQ(tensor_data_text(flag), "1,0");
  tensor u8;
  u8.type = data_type::uint8;
  u8.data = buffer::copy_of(bv.data(), 2);
  EXPECT_EQ(tensor_data_text(u8), "1,0");
}

} // namespace
} // namespace conch::runtime::tracing
