// Every way an infer request body can be wrong, with the status and the
// message it is answered with (spec §0.1, §1.5, §1.6).
#include <gtest/gtest.h>

#include "conch/transports/http/kserve/codec/decode_infer_request.hpp"
#include "conch/transports/http/kserve/codec/encode_error.hpp"
#include "conch/transports/http/kserve/codec/test/codec_test_util.hpp"

namespace conch::transports::http::kserve::codec {
namespace {

using runtime::errc;

struct error_case {
  const char* what;
  std::string json;
  std::string binary;
  bool header;
  int http_status;
  std::string message;
};

const std::string one_of = "Input must set only one of the following fields: 'data', "
                           "'binary_data_size' in 'parameters', 'shared_memory_region' in "
                           "'parameters'. But";

std::vector<error_case> cases() {
  return {
    {"malformed json", R"({"inputs":[)", "", false, 400,
     "failed to parse the request JSON buffer: Invalid value. at 11"},
    {"empty body", "", "", false, 400,
     "failed to parse the request JSON buffer: The document is empty. at 0"},
    {"binary bytes without the header", R"({"inputs":[]})", "\x01\x02", false, 400,
     "failed to parse the request JSON buffer: The document root must not be followed by other "
     "values. at 13"},
    {"not an object", "[1]", "", false, 400, "the inference request must be a JSON object"},
    {"id not a string", R"({"id":1,"inputs":[]})", "", false, 400,
     "Unable to parse 'id': expected a string"},
    {"no inputs", R"({})", "", false, 400, "Unable to parse 'inputs': the field is missing"},
    {"inputs not an array", R"({"inputs":{}})", "", false, 400,
     "Unable to parse 'inputs': expected an array"},
    {"input not an object", R"({"inputs":[1]})", "", false, 400,
     "Unable to parse 'inputs': expected an array of objects"},
    {"input without data", R"({"inputs":[{"name":"A","shape":[1],"datatype":"INT32"}]})", "",
     false, 400, one_of + " no field is set"},
    {"input with data and binary",
     R"({"inputs":[{"name":"A","shape":[1],"datatype":"INT32","data":[1],"parameters":{"binary_data_size":4}}]})",
     "", false, 400, one_of + " set 'data' 'binary_data_size'"},
    {"input with all three",
     R"({"inputs":[{"name":"A","shape":[1],"datatype":"INT32","data":[1],"parameters":{"binary_data_size":4,"shared_memory_region":"r"}}]})",
     "", false, 400, one_of + " set 'data' 'binary_data_size' 'shared_memory_region'"},
    {"input without name", R"({"inputs":[{"shape":[1],"datatype":"INT32","data":[1]}]})", "",
     false, 400, "Unable to parse 'name': the field is missing"},
    {"input without datatype", R"({"inputs":[{"name":"A","shape":[1],"data":[1]}]})", "", false,
     400, "Unable to parse 'datatype': the field is missing"},
    {"input without shape", R"({"inputs":[{"name":"A","datatype":"INT32","data":[1]}]})", "",
     false, 400, "Unable to parse 'shape': the field is missing"},
    {"negative dimension", R"({"inputs":[{"name":"A","shape":[-1],"datatype":"INT32","data":[1]}]})",
     "", false, 400, "Unable to parse 'shape': expected an array of unsigned integers"},
    {"fractional dimension", R"({"inputs":[{"name":"A","shape":[1.5],"datatype":"INT32","data":[1]}]})",
     "", false, 400, "Unable to parse 'shape': expected an array of unsigned integers"},
    {"overflowing shape",
     R"({"inputs":[{"name":"A","shape":[4294967296,4294967296],"datatype":"INT8","data":[1]}]})",
     "", false, 400,
     "Unable to parse 'shape': the element count [4294967296,4294967296] does not fit in 64 bits"},
    {"unknown datatype", R"({"inputs":[{"name":"A","shape":[1],"datatype":"FLOAT","data":[1]}]})",
     "", false, 400, "invalid datatype for input A"},
    {"duplicate input",
     R"({"inputs":[{"name":"A","shape":[1],"datatype":"INT32","data":[1]},{"name":"A","shape":[1],"datatype":"INT32","data":[1]}]})",
     "", false, 400, "input 'A' already exists in request"},
    {"too few elements", R"({"inputs":[{"name":"A","shape":[2,2],"datatype":"INT32","data":[[1,2],[3]]}]})",
     "", false, 500, "Unable to parse 'data': Shape does not match true shape of 'data' field"},
    {"too many elements", R"({"inputs":[{"name":"A","shape":[2],"datatype":"INT32","data":[1,2,3]}]})",
     "", false, 500, "Unable to parse 'data': Shape does not match true shape of 'data' field"},
    {"too few strings", R"({"inputs":[{"name":"S","shape":[3],"datatype":"BYTES","data":["a","b"]}]})",
     "", false, 400, "expected 3 string elements for inference input 'S' for model 'm', got 2"},
    {"too many strings", R"({"inputs":[{"name":"S","shape":[1],"datatype":"BYTES","data":["a","b"]}]})",
     "", false, 400,
     "unexpected number of string elements 2 for inference input 'S' for model 'm', expecting 1"},
    {"fp16 in json", R"({"inputs":[{"name":"H","shape":[1],"datatype":"FP16","data":[1.0]}]})", "",
     false, 400,
     "receiving FP16 data via JSON is not supported. Please use the binary data format for input H"},
    {"bf16 in json", R"({"inputs":[{"name":"H","shape":[1],"datatype":"BF16","data":[1.0]}]})", "",
     false, 400,
     "receiving BF16 data via JSON is not supported. Please use the binary data format for input H"},
    {"wrong element type", R"({"inputs":[{"name":"A","shape":[1],"datatype":"BOOL","data":[1]}]})",
     "", false, 400,
     "Unable to parse 'data': element 0 of input 'A' is not a boolean (true or false)"},
    {"integer out of range", R"({"inputs":[{"name":"A","shape":[1],"datatype":"INT8","data":[300]}]})",
     "", false, 400, "Unable to parse 'data': element 0 of input 'A' is out of range for INT8"},
    {"binary_data_size not a number",
     R"({"inputs":[{"name":"A","shape":[1],"datatype":"INT32","parameters":{"binary_data_size":"4"}}]})",
     "", false, 400, "Unable to parse 'binary_data_size': expected an unsigned integer"},
    {"binary without the header",
     R"({"inputs":[{"name":"A","shape":[1],"datatype":"INT32","parameters":{"binary_data_size":4}}]})",
     "", false, 400, "unexpected size for input 'A', expecting 4 additional bytes for model 'm'"},
    {"short binary blob",
     R"({"inputs":[{"name":"A","shape":[2],"datatype":"INT32","parameters":{"binary_data_size":8}}]})",
     "1234", true, 400, "unexpected size for input 'A', expecting 4 additional bytes for model 'm'"},
    {"trailing bytes",
     R"({"inputs":[{"name":"A","shape":[1],"datatype":"INT32","parameters":{"binary_data_size":4}}]})",
     "12345", true, 400, "unexpected additional input data for model 'm'"},
    {"binary size disagrees with shape",
     R"({"inputs":[{"name":"A","shape":[3],"datatype":"INT32","parameters":{"binary_data_size":8}}]})",
     "12345678", true, 400,
     "input byte size mismatch for input 'A' for model 'm'. Expected 12, got 8"},
    {"binary bytes elements disagree with shape",
     R"({"inputs":[{"name":"S","shape":[2],"datatype":"BYTES","parameters":{"binary_data_size":5}}]})",
     std::string{"\1\0\0\0a", 5}, true, 400,
     "expected 2 string elements for inference input 'S' for model 'm', got 1"},
    {"shared memory without byte size",
     R"({"inputs":[{"name":"A","shape":[1],"datatype":"INT32","parameters":{"shared_memory_region":"r"}}]})",
     "", false, 400, "Unable to parse 'shared_memory_byte_size': the field is missing"},
    {"outputs not an array", R"({"inputs":[],"outputs":{}})", "", false, 400,
     "Unable to parse 'outputs': expected an array"},
    {"output without name", R"({"inputs":[],"outputs":[{}]})", "", false, 400,
     "Unable to parse 'name': the field is missing"},
    {"output shm and classification",
     R"({"inputs":[],"outputs":[{"name":"O","parameters":{"shared_memory_region":"r","shared_memory_byte_size":4,"classification":1}}]})",
     "", false, 400, "Output can't set both 'shared_memory_region' and 'classification'"},
    {"output shm and binary",
     R"({"inputs":[],"outputs":[{"name":"O","parameters":{"shared_memory_region":"r","shared_memory_byte_size":4,"binary_data":true}}]})",
     "", false, 400, "Output can't set both 'shared_memory_region' and 'binary_data'"},
    {"classification not a count",
     R"({"inputs":[],"outputs":[{"name":"O","parameters":{"classification":-1}}]})", "", false, 400,
     "Unable to parse 'classification': expected an unsigned integer"},
    {"binary_data not a boolean",
     R"({"inputs":[],"outputs":[{"name":"O","parameters":{"binary_data":1}}]})", "", false, 400,
     "Unable to parse 'binary_data': expected a boolean"},
    {"reserved parameter", R"({"inputs":[],"parameters":{"triton_x":1}})", "", false, 400,
     "parameter keys starting with 'triton_' are reserved for Triton usage and should not be "
     "specified."},
  };
}

TEST(decode_errors, each_case_has_its_status_and_message) {
  for (const auto& c : cases()) {
    auto req = test::make_request(c.json, c.binary, c.header);
    auto r = decode_infer_request(*req, "m", -1);
    ASSERT_FALSE(r) << c.what;
    EXPECT_EQ(r.error().message(), c.message) << c.what;
    auto answer = encode_error(r.error());
    EXPECT_EQ(answer.status, c.http_status) << c.what;
    EXPECT_EQ(test::body_text(answer), "{\"error\":\"" + json_escape(c.message) + "\"}") << c.what;
  }
}

TEST(decode_errors, header_length_beyond_the_body) {
  auto req = test::make_request(R"({"inputs":[]})");
  req->headers.add("Inference-Header-Content-Length", "100");
  auto r = decode_infer_request(*req, "m", -1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), errc::invalid_argument);
  EXPECT_EQ(r.error().message(), "inference header size should be in range (0, 13), got: 100");
}

TEST(decode_errors, header_shorter_than_the_json) {
  auto req = test::make_request(R"({"inputs":[]})");
  req->headers.add("Inference-Header-Content-Length", "5");
  auto r = decode_infer_request(*req, "m", -1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), errc::invalid_argument);
  EXPECT_EQ(r.error().message().rfind("failed to parse the request JSON buffer: ", 0), 0u);
}

} // namespace
} // namespace conch::transports::http::kserve::codec
