// config.pbtxt: parsing, normalizing and validating any text answers with
// a configuration or an error, never a crash.
#include <string>
#include <string_view>

#include "conch/runtime/model_config/normalize.hpp"
#include "conch/runtime/model_config/parse.hpp"
#include "conch/runtime/model_config/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace mc = conch::runtime::model_config;
  std::string_view text{reinterpret_cast<const char*>(data), size};
  auto config = mc::parse_text(text, "config.pbtxt");
  if (!config)
    return 0;
  if (!mc::normalize(*config, "model").is_ok())
    return 0;
  (void) mc::validate(*config, "config.pbtxt");
  return 0;
}
