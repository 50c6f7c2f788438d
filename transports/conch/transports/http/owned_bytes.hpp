#pragma once

#include <memory>
#include <string>

#include "conch/runtime/buffer.hpp"

namespace conch::transports::http {

/// A buffer that takes ownership of `bytes` without copying them.
inline runtime::buffer owned_bytes(std::string bytes) {
  auto owner = std::make_shared<std::string>(std::move(bytes));
  auto* data = reinterpret_cast<std::byte*>(owner->data());
  auto size = owner->size();
  return {std::move(owner), data, size};
}

} // namespace conch::transports::http
