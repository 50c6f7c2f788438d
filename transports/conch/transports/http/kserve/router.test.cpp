#include "conch/transports/http/kserve/router.hpp"

#include <gtest/gtest.h>

#include "conch/transports/http/request_target.hpp"

namespace conch::transports::http::kserve {
namespace {

runtime::result<route> match(const std::string& target) {
  auto t = parse_request_target(target);
  EXPECT_TRUE(t) << target;
  return match_route(t->segments);
}

endpoint target_of(const std::string& path) {
  auto r = match(path);
  EXPECT_TRUE(r) << path << ": " << r.error().to_string();
  return r ? r->target : endpoint::server_metadata;
}

bool unmatched(const std::string& path) {
  auto r = match(path);
  return !r && r.error().code() == runtime::errc::not_found && r.error().message() == "Not Found";
}

TEST(router, server_paths) {
  EXPECT_EQ(target_of("/v2"), endpoint::server_metadata);
  EXPECT_EQ(target_of("/v2/health/live"), endpoint::health_live);
  EXPECT_EQ(target_of("/v2/health/ready"), endpoint::health_ready);
  EXPECT_EQ(target_of("/v2/logging"), endpoint::logging);
  EXPECT_EQ(target_of("/v2/trace/setting"), endpoint::trace_setting);
  EXPECT_EQ(target_of("/v2/models/stats"), endpoint::all_statistics);
  EXPECT_EQ(target_of("/v2?x=1"), endpoint::server_metadata);
}

TEST(router, model_paths_with_and_without_version) {
  auto r = match("/v2/models/simple");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->target, endpoint::model_metadata);
  EXPECT_EQ(r->model, "simple");
  EXPECT_EQ(r->version, -1);
  r = match("/v2/models/simple/versions/12/infer");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->target, endpoint::model_infer);
  EXPECT_EQ(r->version, 12);
  EXPECT_EQ(target_of("/v2/models/m/ready"), endpoint::model_ready);
  EXPECT_EQ(target_of("/v2/models/m/versions/1/config"), endpoint::model_config);
  EXPECT_EQ(target_of("/v2/models/m/stats"), endpoint::model_statistics);
  EXPECT_EQ(target_of("/v2/models/m/generate"), endpoint::model_generate);
  EXPECT_EQ(target_of("/v2/models/m/generate_stream"), endpoint::model_generate_stream);
  EXPECT_EQ(target_of("/v2/models/m/trace/setting"), endpoint::model_trace_setting);
  // A model may be called "stats" once more segments follow.
  r = match("/v2/models/stats/ready");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->model, "stats");
}

TEST(router, names_are_percent_decoded) {
  auto r = match("/v2/models/a%20b%2Fc/versions/3");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->model, "a b/c");
  EXPECT_EQ(r->version, 3);
}

TEST(router, unknown_paths_are_not_found) {
  EXPECT_TRUE(unmatched("/"));
  EXPECT_TRUE(unmatched("/v1"));
  EXPECT_TRUE(unmatched("/v2/"));
  EXPECT_TRUE(unmatched("/v2/health"));
  EXPECT_TRUE(unmatched("/v2/health/alive"));
  EXPECT_TRUE(unmatched("/v2/models/"));
  EXPECT_TRUE(unmatched("/v2/models/m/"));
  EXPECT_TRUE(unmatched("/v2/models/m/versions"));
  EXPECT_TRUE(unmatched("/v2/models/m/versions/x/infer"));
  EXPECT_TRUE(unmatched("/v2/models/m/versions/1/trace/setting"));
  EXPECT_TRUE(unmatched("/v2/models/m/explain"));
  EXPECT_TRUE(unmatched("/v2/repository/index/x"));
  EXPECT_TRUE(unmatched("/v2/systemsharedmemory/region/r/delete"));
}

TEST(router, a_version_beyond_int64_is_invalid) {
  auto r = match("/v2/models/m/versions/99999999999999999999");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), runtime::errc::invalid_argument);
}

TEST(router, shared_memory_and_repository_paths) {
  auto r = match("/v2/systemsharedmemory/region/r0/register");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->target, endpoint::system_shared_memory);
  EXPECT_EQ(r->region, "r0");
  EXPECT_EQ(r->action, "register");
  r = match("/v2/cudasharedmemory/status");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->target, endpoint::cuda_shared_memory);
  EXPECT_TRUE(r->region.empty());
  EXPECT_EQ(target_of("/v2/repository/index"), endpoint::repository_index);
  r = match("/v2/repository/models/m/load");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->target, endpoint::repository_load);
  EXPECT_EQ(r->model, "m");
  r = match("/v2/repository/other/models/m/unload");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->target, endpoint::repository_unload);
  EXPECT_EQ(r->repository, "other");
}

TEST(router, methods) {
  route r;
  r.target = endpoint::model_infer;
  EXPECT_TRUE(method_allowed(r, "POST"));
  EXPECT_FALSE(method_allowed(r, "GET"));
  r.target = endpoint::model_metadata;
  EXPECT_TRUE(method_allowed(r, "GET"));
  EXPECT_FALSE(method_allowed(r, "POST"));
  EXPECT_FALSE(method_allowed(r, "HEAD"));
  r.target = endpoint::logging;
  EXPECT_TRUE(method_allowed(r, "GET"));
  EXPECT_TRUE(method_allowed(r, "POST"));
  EXPECT_FALSE(method_allowed(r, "PUT"));
  r.target = endpoint::system_shared_memory;
  r.action = "status";
  EXPECT_TRUE(method_allowed(r, "GET"));
  r.action = "unregister";
  EXPECT_TRUE(method_allowed(r, "POST"));
  EXPECT_FALSE(method_allowed(r, "GET"));
}

} // namespace
} // namespace conch::transports::http::kserve
