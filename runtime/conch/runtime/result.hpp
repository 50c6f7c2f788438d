#pragma once

#include <cassert>
#include <optional>
#include <utility>

#include "conch/runtime/status.hpp"

namespace conch::runtime {

/// A value of type T, or the status that explains why there is none.
template <class T>
class [[nodiscard]] result {
 public:
  // -- constructors ----------------------------------------------------------

  result(T value) : value_(std::move(value)) {}
  result(status error) : error_(std::move(error)) {
    assert(!error_.is_ok() && "a result without a value needs an error");
  }

  // -- properties ------------------------------------------------------------

  bool has_value() const noexcept { return value_.has_value(); }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

  /// The error; ok when a value is present.
  const status& error() const noexcept { return error_; }

 private:
  std::optional<T> value_;
  status error_;
};

} // namespace conch::runtime

/// Returns the status of `expr` from the enclosing function unless it is ok.
#define CONCH_RUNTIME_RETURN_IF_ERROR(expr)                                    \
  do {                                                                         \
    if (auto conch_status_ = (expr); !conch_status_.is_ok())                   \
      return conch_status_;                                                    \
  } while (false)
