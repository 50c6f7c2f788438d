// model_warmup: samples run on each instance as it loads, before the
// version is READY; a failing sample fails the load with its name.

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support/server_fixture.hpp"
#include "support/temp_repository.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

std::string add_sub_with_warmup(const std::string& name, const std::string& warmup) {
  return "name: \"" + name + "\"\nbackend: \"add_sub\"\nmax_batch_size: 8\n"
         "input [ { name: \"INPUT0\" data_type: TYPE_INT32 dims: [ 4 ] },\n"
         "        { name: \"INPUT1\" data_type: TYPE_INT32 dims: [ 4 ] } ]\n"
         "output [ { name: \"OUTPUT0\" data_type: TYPE_INT32 dims: [ 4 ] },\n"
         "         { name: \"OUTPUT1\" data_type: TYPE_INT32 dims: [ 4 ] } ]\n"
         "instance_group [ { count: 2 kind: KIND_CPU } ]\n" + warmup;
}

const std::string both_inputs = R"(model_warmup [ { name: "zeros" batch_size: 2 count: 2
  inputs { key: "INPUT0" value: { data_type: TYPE_INT32 dims: [ 4 ] zero_data: true } }
  inputs { key: "INPUT1" value: { data_type: TYPE_INT32 dims: [ 4 ] input_data_file: "ones" } } } ])";

const std::string one_input = R"(model_warmup [ { name: "half a request" batch_size: 1
  inputs { key: "INPUT0" value: { data_type: TYPE_INT32 dims: [ 4 ] random_data: true } } } ])";

class warmup : public server_fixture {
 protected:
  temp_repository repo_;
};

TEST_F(warmup, a_model_with_samples_loads_and_serves) {
  auto dir = repo_.add_model("warm", add_sub_with_warmup("warm", both_inputs));
  std::filesystem::create_directories(dir / "warmup");
  std::string ones(16, '\0');
  for (size_t i = 0; i < 16; i += 4)
    ones[i] = '\x01';
  std::ofstream{dir / "warmup" / "ones", std::ios::binary} << ones;
  auto srv = start(options_for(repo_.str()));
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_TRUE(srv->model_ready("warm"));
  // The warm-up runs count in no statistics.
  auto stats = srv->model_statistics("warm");
  ASSERT_TRUE(stats);
  EXPECT_EQ((*stats)[0].execution_count, 0u);
  std::vector<int32_t> a{1, 2, 3, 4};
  auto r = infer_sync(*srv, make_request("warm", "w",
                                         {make_tensor("INPUT0", runtime::data_type::int32, {1, 4}, a),
                                          make_tensor("INPUT1", runtime::data_type::int32, {1, 4}, a)}));
  ASSERT_TRUE(r.error) << r.error.to_string();
  EXPECT_EQ(values_of<int32_t>(*find_output(r.outputs, "OUTPUT0")),
            (std::vector<int32_t>{2, 4, 6, 8}));
}

TEST_F(warmup, a_failing_sample_fails_the_load_with_its_name) {
  repo_.add_model("cold", add_sub_with_warmup("cold", one_input));
  auto srv = start(options_for(repo_.str(), actors::control_mode::explicit_));
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto st = srv->load("cold");
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("failed to run warmup sample 'half a request': "),
            std::string::npos)
    << st.message();
  EXPECT_FALSE(srv->model_ready("cold"));
}

TEST_F(warmup, a_missing_data_file_fails_the_load) {
  repo_.add_model("nofile", add_sub_with_warmup("nofile", both_inputs));
  auto srv = start(options_for(repo_.str(), actors::control_mode::explicit_));
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto st = srv->load("nofile");
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("failed to open text file for read"), std::string::npos)
    << st.message();
}

} // namespace
} // namespace conch::tests
