#include "conch/runtime/backends/common/warmup.hpp"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <google/protobuf/text_format.h>

#include "conch/runtime/backends/test_support/harness.hpp"

using namespace conch::runtime;
using namespace conch::runtime::backends;
using namespace conch::runtime::backends::common;

namespace {

namespace fs = std::filesystem;

inference::ModelConfig parse(const std::string& text) {
  inference::ModelConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  return config;
}

// A folder with a warmup/ subfolder, removed afterwards.
struct model_folder {
  fs::path path = fs::temp_directory_path() / ("conch-warmup-" + std::to_string(::getpid()));
  model_folder() { fs::create_directories(path / "warmup"); }
  ~model_folder() { fs::remove_all(path); }
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream{path / "warmup" / name, std::ios::binary} << bytes;
  }
};

// Records the batches it runs and answers each job, with an error when the
// first input's first byte is non-zero.
class recording_instance final : public backend_instance {
 public:
  explicit recording_instance(std::shared_ptr<std::vector<size_t>> batches)
    : batches_(std::move(batches)) {}
  void execute(batch& jobs) override {
    batches_->push_back(jobs.size());
    for (auto& job : jobs) {
      const auto& in = job->request().inputs.at(0);
      if (in.data.size() > 0 && in.data.data()[0] != std::byte{0})
        job->fail(invalid_argument("An Error Occurred"));
      else
        job->respond(inference_response{{}, 0, {}, {}, {}, status::ok(), true, nullptr});
    }
  }

 private:
  std::shared_ptr<std::vector<size_t>> batches_;
};

class recording_model final : public backend_model {
 public:
  std::shared_ptr<std::vector<size_t>> batches = std::make_shared<std::vector<size_t>>();
  result<std::unique_ptr<backend_instance>> create_instance(const instance_context&) override {
    return std::unique_ptr<backend_instance>{std::make_unique<recording_instance>(batches)};
  }
};

} // namespace

TEST(warmup, zero_data_makes_batch_size_requests_of_batch_one) {
  auto config = parse(R"(name: "m" max_batch_size: 8
    model_warmup [ { name: "zeros" batch_size: 3 count: 2
      inputs { key: "B" value: { data_type: TYPE_INT32 dims: [ 2 ] zero_data: true } }
      inputs { key: "A" value: { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } } ])");
  auto samples = make_warmup_samples(config, "/nonexistent");
  ASSERT_TRUE(samples) << samples.error().to_string();
  ASSERT_EQ(samples->size(), 1u);
  const auto& s = (*samples)[0];
  EXPECT_EQ(s.name, "zeros");
  EXPECT_EQ(s.count, 2u);
  ASSERT_EQ(s.requests.size(), 3u);
  const auto& inputs = s.requests[0].inputs;
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0].name, "A"); // in name order
  EXPECT_EQ(inputs[0].shape, (shape_type{1, 4}));
  EXPECT_EQ(inputs[0].type, data_type::fp32);
  EXPECT_EQ(test_support::values_of<float>(inputs[0]), (std::vector<float>{0, 0, 0, 0}));
  EXPECT_EQ(inputs[1].shape, (shape_type{1, 2}));
}

TEST(warmup, random_bytes_inputs_are_empty_strings_and_count_zero_runs_once) {
  auto config = parse(R"(name: "m" max_batch_size: 0
    model_warmup [ { name: "r" batch_size: 1
      inputs { key: "S" value: { data_type: TYPE_STRING dims: [ 3 ] random_data: true } }
      inputs { key: "X" value: { data_type: TYPE_UINT8 dims: [ 64 ] random_data: true } } } ])");
  auto samples = make_warmup_samples(config, "/nonexistent");
  ASSERT_TRUE(samples) << samples.error().to_string();
  const auto& s = (*samples)[0];
  EXPECT_EQ(s.count, 1u);
  const auto& strings = s.requests[0].inputs[0];
  EXPECT_EQ(strings.shape, (shape_type{3}));
  EXPECT_TRUE(strings.validate_data()) << strings.validate_data().to_string();
  EXPECT_EQ(strings.data.size(), 12u);
  EXPECT_EQ(s.requests[0].inputs[1].data.size(), 64u);
}

TEST(warmup, input_data_file_reads_the_warmup_folder) {
  model_folder folder;
  folder.write("four", std::string("\x01\x02\x03\x04\x05", 5));
  auto config = parse(R"(name: "m" max_batch_size: 0
    model_warmup [ { name: "f" batch_size: 1
      inputs { key: "X" value: { data_type: TYPE_UINT8 dims: [ 4 ] input_data_file: "four" } } } ])");
  auto samples = make_warmup_samples(config, folder.path);
  ASSERT_TRUE(samples) << samples.error().to_string();
  EXPECT_EQ(test_support::values_of<uint8_t>((*samples)[0].requests[0].inputs[0]),
            (std::vector<uint8_t>{1, 2, 3, 4}));

  auto long_config = parse(R"(name: "m" max_batch_size: 0
    model_warmup [ { name: "f" batch_size: 1
      inputs { key: "X" value: { data_type: TYPE_UINT8 dims: [ 8 ] input_data_file: "four" } } } ])");
  auto too_short = make_warmup_samples(long_config, folder.path);
  ASSERT_FALSE(too_short);
  EXPECT_EQ(too_short.error().message(),
            "warmup setting expects 8 bytes, but the data provided from fouronly has 5 bytes");

  auto missing = make_warmup_samples(config, folder.path / "elsewhere");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), errc::internal);
  EXPECT_NE(missing.error().message().find("failed to open text file for read"),
            std::string::npos);
}

TEST(warmup, an_input_data_file_leading_out_of_the_warmup_folder_is_refused) {
  model_folder folder;
  std::ofstream{folder.path / "secret", std::ios::binary} << "abcd";
  fs::create_symlink(folder.path / "secret", folder.path / "warmup" / "link");
  for (const char* name : {"link", "../secret"}) {
    auto config = parse(std::string{R"(name: "m" max_batch_size: 0
      model_warmup [ { name: "f" batch_size: 1
        inputs { key: "X" value: { data_type: TYPE_UINT8 dims: [ 4 ] input_data_file: ")"}
                        + name + "\" } } } ]");
    auto samples = make_warmup_samples(config, folder.path);
    ASSERT_FALSE(samples) << name;
    EXPECT_EQ(samples.error().code(), errc::invalid_argument) << name;
  }
}

TEST(warmup, refuses_variable_dims_and_inputs_without_data) {
  auto variable = parse(R"(name: "m" max_batch_size: 0
    model_warmup [ { name: "v" batch_size: 1
      inputs { key: "X" value: { data_type: TYPE_FP32 dims: [ -1 ] zero_data: true } } } ])");
  EXPECT_EQ(make_warmup_samples(variable, "/").error().message(),
            "warmup setting expects all variable-size dimensions are specified for input 'X'");
  auto no_data = parse(R"(name: "m" max_batch_size: 0
    model_warmup [ { name: "v" batch_size: 1
      inputs { key: "X" value: { data_type: TYPE_FP32 dims: [ 1 ] } } } ])");
  EXPECT_EQ(make_warmup_samples(no_data, "/").error().message(),
            "warmup setting expects input 'X' to have input_data_type set");
}

TEST(warmup, each_instance_runs_every_sample_count_times_and_a_failure_fails_it) {
  model_folder folder;
  folder.write("ones", std::string("\x01", 1));
  auto config = parse(R"(name: "m" max_batch_size: 4
    model_warmup [ { name: "zeros" batch_size: 2 count: 3
                     inputs { key: "X" value: { data_type: TYPE_UINT8 dims: [ 1 ] zero_data: true } } },
                   { name: "bad" batch_size: 1
                     inputs { key: "X" value: { data_type: TYPE_UINT8 dims: [ 1 ] input_data_file: "ones" } } } ])");
  auto samples = make_warmup_samples(config, folder.path);
  ASSERT_TRUE(samples) << samples.error().to_string();
  auto model = std::make_shared<recording_model>();
  auto warmed = with_warmup(model, *samples);
  auto instance = warmed->create_instance(instance_context{"m_0"});
  ASSERT_FALSE(instance);
  EXPECT_EQ(instance.error().code(), errc::invalid_argument);
  EXPECT_EQ(instance.error().message(), "failed to run warmup sample 'bad': An Error Occurred; ");
  EXPECT_EQ(*model->batches, (std::vector<size_t>{2, 2, 2, 1}));

  samples->pop_back();
  auto good = with_warmup(model, *samples)->create_instance(instance_context{"m_1"});
  EXPECT_TRUE(good);
  EXPECT_EQ(with_warmup(model, {}), model); // nothing to warm up: the model itself
}
