// A repository full of malformed configurations (tests/data/configs/invalid/)
// next to two good models: the bad ones must fail to load one by one, each
// with a reason that names its file, without disturbing the good ones.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/server_fixture.hpp"
#include "support/temp_repository.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

namespace fs = std::filesystem;
using actors::index_entry;
using actors::model_state;
using runtime::data_type;

// The number of folders in tests/data/configs/invalid/ when this test was
// written; a change means the list below no longer covers what it claims.
constexpr size_t expected_invalid_configs = 27;

const char* good_identity_config = R"(
name: "good_identity"
backend: "identity"
max_batch_size: 4
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 3 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 3 ] } ]
)";

const char* good_add_sub_config = R"(
name: "good_add_sub"
backend: "add_sub"
max_batch_size: 0
input [
  { name: "INPUT0" data_type: TYPE_INT32 dims: [ 4 ] },
  { name: "INPUT1" data_type: TYPE_INT32 dims: [ 4 ] }
]
output [
  { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 4 ] },
  { name: "OUTPUT1" data_type: TYPE_INT32 dims: [ 4 ] }
]
)";

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class malformed_configs : public server_fixture {
 protected:
  void SetUp() override {
    auto source = source_dir() / "tests/data/configs/invalid";
    for (const auto& entry : fs::directory_iterator(source))
      if (entry.is_directory())
        bad_.push_back(entry.path().filename().string());
    std::sort(bad_.begin(), bad_.end());
    for (const auto& name : bad_)
      repo_.add_model(name, read_file(source / name / "config.pbtxt"), {1});
    repo_.add_model("good_identity", good_identity_config);
    repo_.add_model("good_add_sub", good_add_sub_config);
  }

  actors::server_options options(bool exit_on_error) const {
    auto o = options_for(repo_.str());
    o.exit_on_error = exit_on_error;
    return o;
  }

  temp_repository repo_;
  std::vector<std::string> bad_;
};

TEST_F(malformed_configs, the_data_set_holds_every_malformed_config) {
  EXPECT_EQ(bad_.size(), expected_invalid_configs);
}

TEST_F(malformed_configs, every_bad_model_is_unavailable_with_a_reason_naming_its_file) {
  auto srv = start(options(false));
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto index = srv->repository_index();
  ASSERT_TRUE(index) << index.error().to_string();
  for (const auto& name : bad_) {
    SCOPED_TRACE(name);
    auto i = std::find_if(index->begin(), index->end(),
                          [&](const index_entry& e) { return e.name == name; });
    ASSERT_NE(i, index->end());
    EXPECT_EQ(i->state, model_state::unavailable) << model_state_name(i->state);
    auto file = (repo_.path() / name / "config.pbtxt").string();
    EXPECT_NE(i->reason.find(file), std::string::npos) << "reason: '" << i->reason << "'";
    EXPECT_FALSE(srv->model_ready(name));
  }
}

TEST_F(malformed_configs, the_good_models_serve_next_to_the_bad_ones) {
  auto srv = start(options(false));
  ASSERT_TRUE(srv) << srv.error().to_string();
  ASSERT_TRUE(srv->model_ready("good_identity"));
  ASSERT_TRUE(srv->model_ready("good_add_sub"));

  std::vector<float> x{1.5f, -2.0f, 3.25f, 4.0f, 5.0f, 6.5f};
  auto r = infer_sync(*srv, make_request("good_identity", "i",
                                         {make_tensor("INPUT0", data_type::fp32, {2, 3}, x)}));
  ASSERT_TRUE(r.error.is_ok()) << r.error.to_string();
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].shape, (runtime::shape_type{2, 3}));
  EXPECT_EQ(values_of<float>(r.outputs[0]), x);

  std::vector<int32_t> a{10, 20, 30, 40};
  std::vector<int32_t> b{1, 2, 3, -4};
  auto s = infer_sync(*srv, make_request("good_add_sub", "s",
                                         {make_tensor("INPUT0", data_type::int32, {4}, a),
                                          make_tensor("INPUT1", data_type::int32, {4}, b)}));
  ASSERT_TRUE(s.error.is_ok()) << s.error.to_string();
  const auto* sum = find_output(s.outputs, "OUTPUT0");
  const auto* diff = find_output(s.outputs, "OUTPUT1");
  ASSERT_NE(sum, nullptr);
  ASSERT_NE(diff, nullptr);
  EXPECT_EQ(values_of<int32_t>(*sum), (std::vector<int32_t>{11, 22, 33, 36}));
  EXPECT_EQ(values_of<int32_t>(*diff), (std::vector<int32_t>{9, 18, 27, 44}));
}

TEST_F(malformed_configs, exit_on_error_names_every_bad_model_and_no_good_one) {
  auto srv = start(options(true));
  ASSERT_FALSE(srv);
  const auto& message = srv.error().message();
  for (const auto& name : bad_) {
    EXPECT_NE(message.find(name + ":"), std::string::npos) << name << " missing in " << message;
    auto file = (repo_.path() / name / "config.pbtxt").string();
    EXPECT_NE(message.find(file), std::string::npos) << file << " missing in " << message;
  }
  EXPECT_EQ(message.find("good_identity"), std::string::npos) << message;
  EXPECT_EQ(message.find("good_add_sub"), std::string::npos) << message;
}

} // namespace
} // namespace conch::tests
