// The classification extension over the KServe gRPC frontend: an output
// requested with `classification` comes back as BYTES "<value>:<index>"
// strings, labelled from the output's label file.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/grpc_fixture.hpp"
#include "support/grpc_requests.hpp"
#include "support/temp_repository.hpp"

namespace conch::tests {
namespace {

// The elements of a raw BYTES entry (4-byte little-endian length prefixes).
std::vector<std::string> bytes_elements(const std::string& raw) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at + 4 <= raw.size()) {
    uint32_t n = 0;
    std::memcpy(&n, raw.data() + at, 4);
    at += 4;
    out.push_back(raw.substr(at, n));
    at += n;
  }
  return out;
}

class grpc_classification : public grpc_fixture {
 protected:
  void SetUp() override {
    repo_.add_model("labelled",
                    "backend: \"identity\"\nmax_batch_size: 8\n"
                    "input [ { name: \"INPUT0\" data_type: TYPE_FP32 dims: [ 4 ] } ]\n"
                    "output [ { name: \"OUTPUT0\" data_type: TYPE_FP32 dims: [ 4 ] "
                    "label_filename: \"labels.txt\" } ]\n");
    repo_.write("labelled/labels.txt", "cat\ndog\nbird\n");
    start_all(options_for(repo_.str()));
  }

  static inference::ModelInferRequest classify_request(int64_t k) {
    inference::ModelInferRequest req;
    req.set_model_name("labelled");
    add_input(req, "INPUT0", "FP32", {2, 4});
    *req.add_raw_input_contents()
      = raw_bytes(std::vector<float>{0.1f, 0.7f, 0.2f, 0.0f, 5, 1, 2, 9});
    auto* out = req.add_outputs();
    out->set_name("OUTPUT0");
    (*out->mutable_parameters())["classification"].set_int64_param(k);
    return req;
  }

  temp_repository repo_;
};

TEST_F(grpc_classification, classes_come_back_as_labelled_strings) {
  inference::ModelInferResponse res;
  auto st = stub_->ModelInfer(client_context().get(), classify_request(2), &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(res.outputs_size(), 1);
  ASSERT_EQ(res.raw_output_contents_size(), 1);
  const auto& out = res.outputs(0);
  EXPECT_EQ(out.datatype(), "BYTES");
  ASSERT_EQ(out.shape_size(), 2);
  EXPECT_EQ(out.shape(0), 2);
  EXPECT_EQ(out.shape(1), 2);
  EXPECT_EQ(bytes_elements(res.raw_output_contents(0)),
            (std::vector<std::string>{"0.700000:1:dog", "0.200000:2:bird", "9.000000:3",
                                      "5.000000:0:cat"}));
}

TEST_F(grpc_classification, a_bad_class_count_is_invalid) {
  inference::ModelInferResponse res;
  auto st = stub_->ModelInfer(client_context().get(), classify_request(0), &res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(),
            "output 'OUTPUT0': invalid value for 'classification' parameter, expected a value > 0");
}

} // namespace
} // namespace conch::tests
