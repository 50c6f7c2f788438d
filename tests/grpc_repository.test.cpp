// The model repository RPCs of the KServe gRPC frontend (RepositoryIndex,
// RepositoryModelLoad, RepositoryModelUnload), through the generated stub.

#include <string>

#include <gtest/gtest.h>

#include "support/grpc_fixture.hpp"

namespace conch::tests {
namespace {

class grpc_repository : public grpc_fixture {
 protected:
  void SetUp() override { start_all(); }

  grpc::Status index(bool ready, inference::RepositoryIndexResponse& res,
                     const std::string& repository = "") {
    inference::RepositoryIndexRequest req;
    req.set_ready(ready);
    req.set_repository_name(repository);
    return stub_->RepositoryIndex(client_context().get(), req, &res);
  }

  grpc::Status load(const inference::RepositoryModelLoadRequest& req) {
    inference::RepositoryModelLoadResponse res;
    return stub_->RepositoryModelLoad(client_context().get(), req, &res);
  }

  grpc::Status unload(const std::string& model, bool dependents) {
    inference::RepositoryModelUnloadRequest req;
    req.set_model_name(model);
    (*req.mutable_parameters())["unload_dependents"].set_bool_param(dependents);
    inference::RepositoryModelUnloadResponse res;
    return stub_->RepositoryModelUnload(client_context().get(), req, &res);
  }

  bool model_ready(const std::string& model) {
    inference::ModelReadyRequest req;
    req.set_name(model);
    inference::ModelReadyResponse res;
    auto st = stub_->ModelReady(client_context().get(), req, &res);
    return st.ok() && res.ready();
  }

  // The index entry of `model`, or nullptr.
  static const inference::RepositoryIndexResponse::ModelIndex*
  entry(const inference::RepositoryIndexResponse& res, const std::string& model) {
    for (const auto& m : res.models())
      if (m.name() == model)
        return &m;
    return nullptr;
  }
};

TEST_F(grpc_repository, index_lists_models_and_filters_ready_ones) {
  inference::RepositoryIndexResponse all;
  auto st = index(false, all);
  ASSERT_TRUE(st.ok()) << st.error_message();
  const auto* identity = entry(all, "identity_fp32");
  ASSERT_NE(identity, nullptr);
  EXPECT_EQ(identity->version(), "1");
  EXPECT_EQ(identity->state(), "READY");
  EXPECT_EQ(identity->reason(), "");
  // The example repository holds Python models that were never loaded.
  const auto* python_model = entry(all, "add_sub_python");
  ASSERT_NE(python_model, nullptr);
  EXPECT_EQ(python_model->version(), "");

  inference::RepositoryIndexResponse ready;
  st = index(true, ready);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_NE(entry(ready, "identity_fp32"), nullptr);
  EXPECT_EQ(entry(ready, "add_sub_python"), nullptr);
  for (const auto& m : ready.models())
    EXPECT_EQ(m.state(), "READY") << m.name();

  st = index(false, all, "other");
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(st.error_message(), "'repository_name' specification is not supported");
}

TEST_F(grpc_repository, unload_and_load_again) {
  auto st = unload("simple", false);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_FALSE(model_ready("simple"));
  inference::RepositoryIndexResponse res;
  ASSERT_TRUE(index(false, res).ok());
  ASSERT_NE(entry(res, "simple"), nullptr);
  EXPECT_EQ(entry(res, "simple")->state(), "UNAVAILABLE");

  inference::RepositoryModelLoadRequest req;
  req.set_model_name("simple");
  st = load(req);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(model_ready("simple"));
  // unload_dependents is accepted either way.
  EXPECT_TRUE(unload("simple", true).ok());
  EXPECT_FALSE(model_ready("simple"));

  req.set_model_name("nope");
  EXPECT_EQ(load(req).error_code(), grpc::StatusCode::INTERNAL);
  req.set_model_name("simple");
  req.set_repository_name("other");
  st = load(req);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(st.error_message(), "'repository_name' specification is not supported");
}

TEST_F(grpc_repository, load_with_a_config_override) {
  inference::RepositoryModelLoadRequest req;
  req.set_model_name("identity_fp32");
  (*req.mutable_parameters())["config"].set_string_param(
    R"({"name":"identity_fp32","backend":"identity","max_batch_size":4,)"
    R"("input":[{"name":"INPUT0","data_type":"TYPE_FP32","dims":[16]}],)"
    R"("output":[{"name":"OUTPUT0","data_type":"TYPE_FP32","dims":[16]}]})");
  auto st = load(req);
  ASSERT_TRUE(st.ok()) << st.error_message();
  inference::ModelConfigRequest creq;
  creq.set_name("identity_fp32");
  inference::ModelConfigResponse cres;
  st = stub_->ModelConfig(client_context().get(), creq, &cres);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(cres.config().max_batch_size(), 4);

  (*req.mutable_parameters())["config"].set_string_param(R"({"max_batch_size":"many"})");
  EXPECT_EQ(load(req).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(grpc_repository, load_with_file_overrides) {
  inference::RepositoryModelLoadRequest req;
  req.set_model_name("from_files");
  auto& params = *req.mutable_parameters();
  params["config"].set_string_param(
    R"({"backend":"identity","max_batch_size":0,)"
    R"("input":[{"name":"INPUT0","data_type":"TYPE_INT32","dims":[2]}],)"
    R"("output":[{"name":"OUTPUT0","data_type":"TYPE_INT32","dims":[2]}]})");
  // Raw bytes, not base64, over gRPC.
  params["file:1/notes.bin"].set_bytes_param(std::string{"\x00\xff\x01", 3});
  auto st = load(req);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(model_ready("from_files"));
}

TEST_F(grpc_repository, parameters_of_the_wrong_type_are_invalid) {
  inference::RepositoryModelLoadRequest req;
  req.set_model_name("from_files");
  (*req.mutable_parameters())["config"].set_bytes_param("{}");
  auto st = load(req);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(),
            "invalid value type for load parameter 'config', expected string_param");
  req.clear_parameters();
  (*req.mutable_parameters())["config"].set_string_param("{}");
  (*req.mutable_parameters())["file:1/x"].set_string_param("aGVsbG8=");
  st = load(req);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(),
            "invalid value type for load parameter 'file:1/x', expected bytes_param");

  inference::RepositoryModelUnloadRequest ureq;
  ureq.set_model_name("simple");
  (*ureq.mutable_parameters())["unload_dependents"].set_string_param("yes");
  inference::RepositoryModelUnloadResponse ures;
  st = stub_->RepositoryModelUnload(client_context().get(), ureq, &ures);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(model_ready("simple"));
}

} // namespace
} // namespace conch::tests
