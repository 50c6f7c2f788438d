#include "conch/transports/http/kserve/shared_memory_bodies.hpp"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conch/transports/http/kserve/test/post_with_body.hpp"

#include "conch/runtime/test/fake_device_memory.hpp"

namespace conch::transports::http::kserve {
namespace {

using test::with_body;

std::string parse_failure(const std::string& body) {
  auto r = parse_cuda_register_body(with_body(body));
  EXPECT_FALSE(r) << body;
  if (r)
    return "";
  EXPECT_EQ(r.error().code(), runtime::errc::invalid_argument);
  return r.error().message();
}

TEST(shared_memory_bodies, a_cuda_register_body_decodes_its_handle) {
  auto r = parse_cuda_register_body(
    with_body(R"({"raw_handle":{"b64":"AAECAw=="},"device_id":1,"byte_size":4096})"));
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->raw_handle, std::string("\0\1\2\3", 4));
  EXPECT_EQ(r->device_id, 1);
  EXPECT_EQ(r->byte_size, 4096u);
}

TEST(shared_memory_bodies, a_bad_cuda_register_body_names_the_field) {
  EXPECT_EQ(parse_failure(R"({"device_id":0,"byte_size":64})"),
            "Unable to parse 'raw_handle': the field is missing");
  EXPECT_EQ(parse_failure(R"({"raw_handle":"AAAA","device_id":0,"byte_size":64})"),
            "Unable to parse 'raw_handle': expected an object with a base64 string 'b64'");
  EXPECT_EQ(parse_failure(R"({"raw_handle":{},"device_id":0,"byte_size":64})"),
            "Unable to parse 'raw_handle.b64': the field is missing");
  EXPECT_EQ(parse_failure(R"({"raw_handle":{"b64":7},"device_id":0,"byte_size":64})"),
            "Unable to parse 'raw_handle.b64': expected a string");
  EXPECT_EQ(parse_failure(R"({"raw_handle":{"b64":"A*=="},"device_id":0,"byte_size":64})")
              .rfind("Unable to parse 'raw_handle.b64': invalid base64 data: ", 0),
            0u);
  EXPECT_EQ(parse_failure(R"({"raw_handle":{"b64":"AAAA"},"byte_size":64})"),
            "Unable to parse 'device_id': the field is missing");
  EXPECT_EQ(parse_failure(R"({"raw_handle":{"b64":"AAAA"},"device_id":-1,"byte_size":64})"),
            "Unable to parse 'device_id': expected an unsigned integer");
  EXPECT_EQ(parse_failure(
              R"({"raw_handle":{"b64":"AAAA"},"device_id":18446744073709551615,"byte_size":1})"),
            "Unable to parse 'device_id': the value is too large");
  EXPECT_EQ(parse_failure(R"({"raw_handle":{"b64":"AAAA"},"device_id":0})"),
            "Unable to parse 'byte_size': the field is missing");
  EXPECT_EQ(parse_failure(R"({"raw_handle":{"b64":"AAAA"},"device_id":0,"byte_size":"64"})"),
            "Unable to parse 'byte_size': expected an unsigned integer");
  EXPECT_FALSE(parse_cuda_register_body(with_body("[]")));
  EXPECT_FALSE(parse_cuda_register_body(with_body("{")));
}

TEST(shared_memory_bodies, cuda_status_lists_name_device_and_size) {
  auto memory = std::make_shared<runtime::test::fake_device_memory>(2);
  runtime::shm::region_registry registry{memory};
  ASSERT_TRUE(registry.register_cuda("b", memory->export_allocation(64, 1), 1, 32));
  ASSERT_TRUE(registry.register_cuda("a", memory->export_allocation(64, 0), 0, 64));
  EXPECT_EQ(cuda_status_json({}), "[]");
  EXPECT_EQ(cuda_status_json(*registry.cuda_status("")),
            R"([{"name":"a","device_id":0,"byte_size":64},)"
            R"({"name":"b","device_id":1,"byte_size":32}])");
}

} // namespace
} // namespace conch::transports::http::kserve
