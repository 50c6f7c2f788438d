// TraceSetting and LogSettings over the KServe gRPC frontend: the trace
// settings with Triton's answers, and the logging settings through the
// gateway with the HTTP frontend's checks.

#include <string>

#include <gtest/gtest.h>

#include "support/grpc_fixture.hpp"

namespace conch::tests {
namespace {

class grpc_settings : public grpc_fixture {
 protected:
  void SetUp() override { start_all(); }

  // The logging settings belong to the process: what a test changed goes
  // back to the defaults, so the tests pass in any order in one process.
  void TearDown() override {
    inference::LogSettingsRequest req;
    auto& s = *req.mutable_settings();
    s["log_info"].set_bool_param(true);
    s["log_warning"].set_bool_param(true);
    s["log_error"].set_bool_param(true);
    s["log_verbose_level"].set_uint32_param(0);
    s["log_format"].set_string_param("default");
    inference::LogSettingsResponse res;
    auto st = log_settings(req, res);
    EXPECT_TRUE(st.ok()) << st.error_message();
    grpc_fixture::TearDown();
  }

  grpc::Status log_settings(const inference::LogSettingsRequest& req,
                            inference::LogSettingsResponse& res) {
    return stub_->LogSettings(client_context().get(), req, &res);
  }

  static const inference::LogSettingsResponse::SettingValue&
  setting(const inference::LogSettingsResponse& res, const std::string& key) {
    static const inference::LogSettingsResponse::SettingValue none;
    auto i = res.settings().find(key);
    EXPECT_NE(i, res.settings().end()) << key;
    return i == res.settings().end() ? none : i->second;
  }
};

TEST_F(grpc_settings, trace_settings_read_change_and_refuse_as_tritons_do) {
  inference::TraceSettingRequest req;
  inference::TraceSettingResponse res;
  auto st = stub_->TraceSetting(client_context().get(), req, &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(res.settings().at("trace_level").value_size(), 1);
  EXPECT_EQ(res.settings().at("trace_level").value(0), "OFF");
  EXPECT_EQ(res.settings().at("trace_rate").value(0), "1000");
  EXPECT_EQ(res.settings().at("trace_mode").value(0), "triton");

  req.set_model_name("simple");
  (*req.mutable_settings())["trace_rate"].add_value("5");
  res.Clear();
  st = stub_->TraceSetting(client_context().get(), req, &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(res.settings().at("trace_rate").value(0), "5");
  // An empty value clears the model's setting back to the global one.
  (*req.mutable_settings())["trace_rate"].clear_value();
  res.Clear();
  st = stub_->TraceSetting(client_context().get(), req, &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(res.settings().at("trace_rate").value(0), "1000");

  (*req.mutable_settings())["trace_rate"].add_value("1");
  (*req.mutable_settings())["trace_rate"].add_value("2");
  st = stub_->TraceSetting(client_context().get(), req, &res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(), "expect only 1 value for 'trace_rate'");
  req.mutable_settings()->clear();
  (*req.mutable_settings())["trace_file"].add_value("x.json");
  st = stub_->TraceSetting(client_context().get(), req, &res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  req.set_model_name("nope");
  req.mutable_settings()->clear();
  st = stub_->TraceSetting(client_context().get(), req, &res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(), "Request for unknown model : nope");
}

TEST_F(grpc_settings, log_settings_read_and_update) {
  inference::LogSettingsResponse res;
  auto st = log_settings({}, res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(res.settings_size(), 6);
  EXPECT_EQ(setting(res, "log_file").string_param(), "");
  EXPECT_TRUE(setting(res, "log_info").bool_param());
  EXPECT_TRUE(setting(res, "log_warning").bool_param());
  EXPECT_TRUE(setting(res, "log_error").bool_param());
  EXPECT_EQ(setting(res, "log_verbose_level").parameter_choice_case(),
            inference::LogSettingsResponse::SettingValue::kUint32Param);
  EXPECT_EQ(setting(res, "log_verbose_level").uint32_param(), 0u);
  EXPECT_EQ(setting(res, "log_format").string_param(), "default");

  inference::LogSettingsRequest req;
  auto& s = *req.mutable_settings();
  s["log_info"].set_bool_param(false);
  s["log_verbose_level"].set_uint32_param(1);
  s["log_format"].set_string_param("ISO8601");
  s["log_error"];  // unset: left as it is
  st = log_settings(req, res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_FALSE(setting(res, "log_info").bool_param());
  EXPECT_TRUE(setting(res, "log_error").bool_param());
  EXPECT_EQ(setting(res, "log_verbose_level").uint32_param(), 1u);
  EXPECT_EQ(setting(res, "log_format").string_param(), "ISO8601");
  res.Clear();
  ASSERT_TRUE(log_settings({}, res).ok());
  EXPECT_EQ(setting(res, "log_format").string_param(), "ISO8601");
}

TEST_F(grpc_settings, log_settings_refuse_what_http_refuses) {
  inference::LogSettingsResponse res;
  inference::LogSettingsRequest file;
  (*file.mutable_settings())["log_file"].set_string_param("/tmp/x.log");
  auto st = log_settings(file, res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(st.error_message(), "log file location can not be updated through network protocol");

  inference::LogSettingsRequest type;
  (*type.mutable_settings())["log_info"].set_string_param("no");
  st = log_settings(type, res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(), "expect boolean for 'log_info'");

  inference::LogSettingsRequest level;
  (*level.mutable_settings())["log_verbose_level"].set_bool_param(true);
  st = log_settings(level, res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(), "expect unsigned integer for 'log_verbose_level'");

  inference::LogSettingsRequest format;
  (*format.mutable_settings())["log_format"].set_string_param("json");
  st = log_settings(format, res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // Nothing changed.
  res.Clear();
  ASSERT_TRUE(log_settings({}, res).ok());
  EXPECT_TRUE(setting(res, "log_info").bool_param());
  EXPECT_EQ(setting(res, "log_format").string_param(), "default");
}

} // namespace
} // namespace conch::tests
