#include "conch/transports/openai/routes.hpp"

namespace conch::transports::openai {

http::response error_response(const api_error& error) {
  return http::response::text(error.status, error.body, "application/json");
}

http::response json_response(std::string body) {
  return http::response::text(200, body, "application/json");
}

runtime::result<runtime::resolved_model_ptr> resolve_model(gateway& server,
                                                           const std::string& name,
                                                           const std::string& shown) {
  auto model = server.resolve(name, -1);
  if (!model && model.error().code() == runtime::errc::not_found)
    return runtime::invalid_argument("Unknown model: " + shown);
  return model;
}

void cancel_slot::set(cancel_fn fn) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!wanted_) {
    fn_ = std::move(fn);
    return;
  }
  lock.unlock();
  if (fn)
    fn();
}

void cancel_slot::cancel() {
  cancel_fn fn;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (wanted_)
      return;
    wanted_ = true;
    fn.swap(fn_);
  }
  if (fn)
    fn();
}

} // namespace conch::transports::openai
