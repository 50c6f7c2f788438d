// The classification extension over the KServe HTTP frontend: top-k classes
// named by the output's label file, read when the model loads.

#include <string>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "support/http_fixture.hpp"
#include "support/temp_repository.hpp"

namespace conch::tests {
namespace {

rapidjson::Document json_of(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

// An identity model over FP32 [4] whose output is labelled by `label_file`.
std::string labelled_identity(const std::string& label_file) {
  return "backend: \"identity\"\nmax_batch_size: 8\n"
         "input [ { name: \"INPUT0\" data_type: TYPE_FP32 dims: [ 4 ] } ]\n"
         "output [ { name: \"OUTPUT0\" data_type: TYPE_FP32 dims: [ 4 ] label_filename: \""
         + label_file + "\" } ]\n";
}

class http_classification : public http_fixture {
 protected:
  void SetUp() override {
    repo_.add_model("labelled", labelled_identity("labels.txt"));
    repo_.write("labelled/labels.txt", "cat\ndog\nbird\n");
    repo_.add_model("unlabelled_file", labelled_identity("absent.txt"));
    auto options = options_for(repo_.str(), actors::control_mode::explicit_);
    options.startup_models = {"labelled"};
    start_all(options);
  }

  std::optional<raw_response> classify(const std::string& model, int k) {
    return call("POST", "/v2/models/" + model + "/infer",
                R"({"inputs":[{"name":"INPUT0","shape":[2,4],"datatype":"FP32",)"
                R"("data":[0.1,0.7,0.2,0.0,5,1,2,9]}],)"
                R"("outputs":[{"name":"OUTPUT0","parameters":{"classification":)"
                  + std::to_string(k) + R"(,"binary_data":false}}]})");
  }

  temp_repository repo_;
};

TEST_F(http_classification, classes_carry_the_labels_of_the_label_file) {
  auto r = classify("labelled", 2);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto d = json_of(r->body);
  const auto& out = d["outputs"][0];
  EXPECT_STREQ(out["datatype"].GetString(), "BYTES");
  ASSERT_EQ(out["shape"].Size(), 2u);
  EXPECT_EQ(out["shape"][0].GetInt(), 2);
  EXPECT_EQ(out["shape"][1].GetInt(), 2);
  ASSERT_EQ(out["data"].Size(), 4u);
  EXPECT_STREQ(out["data"][0].GetString(), "0.700000:1:dog");
  EXPECT_STREQ(out["data"][1].GetString(), "0.200000:2:bird");
  // Class 3 has no line in the label file: no label.
  EXPECT_STREQ(out["data"][2].GetString(), "9.000000:3");
  EXPECT_STREQ(out["data"][3].GetString(), "5.000000:0:cat");
}

TEST_F(http_classification, a_missing_label_file_fails_the_load_with_its_name) {
  auto r = call("POST", "/v2/repository/models/unlabelled_file/load", "");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_NE(r->body.find("absent.txt"), std::string::npos) << r->body;
  // The server keeps serving the labelled model.
  auto again = classify("labelled", 1);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body;
}

TEST_F(http_classification, server_metadata_lists_the_extension) {
  auto r = call("GET", "/v2");
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("\"classification\""), std::string::npos) << r->body;
}

} // namespace
} // namespace conch::tests
