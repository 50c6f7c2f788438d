#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace conch::runtime {

/// The error classes of Conch. Each maps to one HTTP status, one gRPC code and
/// one Python exception (see `errc_name` and the transports' status mapping).
enum class errc : uint8_t {
  /// No error.
  ok = 0,
  /// A failure inside Conch or a backend that the caller cannot fix.
  internal,
  /// The model, version, region or resource does not exist.
  not_found,
  /// The request or configuration is malformed.
  invalid_argument,
  /// The server or model cannot take the request now (stopping, overloaded, not ready).
  unavailable,
  /// The operation is valid but Conch or the model does not support it.
  unsupported,
  /// The thing to create exists already.
  already_exists,
  /// The request was cancelled before it completed.
  cancelled,
  /// Any other failure.
  unknown,
};

/// The upper-case name of a code, as Triton spells its error classes ("NOT_FOUND").
std::string_view errc_name(errc code) noexcept;

/// The outcome of an operation: ok, or an error code with a message.
class [[nodiscard]] status {
 public:
  // -- constructors ----------------------------------------------------------

  status() noexcept = default;
  status(errc code, std::string message) : code_(code), message_(std::move(message)) {}

  /// The ok status.
  static status ok() noexcept { return {}; }

  // -- properties ------------------------------------------------------------

  bool is_ok() const noexcept { return code_ == errc::ok; }
  explicit operator bool() const noexcept { return is_ok(); }
  errc code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }

  /// "<CODE>: <message>", for logs and test failures.
  std::string to_string() const;

  /// The same code with `prefix` put before the message.
  status with_prefix(std::string_view prefix) const;

  friend bool operator==(const status& a, const status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  errc code_ = errc::ok;
  std::string message_;
};

/// Shorthands that read like the condition they report.
inline status internal_error(std::string m) { return {errc::internal, std::move(m)}; }
inline status not_found(std::string m) { return {errc::not_found, std::move(m)}; }
inline status invalid_argument(std::string m) { return {errc::invalid_argument, std::move(m)}; }
inline status unavailable(std::string m) { return {errc::unavailable, std::move(m)}; }
inline status unsupported(std::string m) { return {errc::unsupported, std::move(m)}; }
inline status already_exists(std::string m) { return {errc::already_exists, std::move(m)}; }
inline status cancelled(std::string m) { return {errc::cancelled, std::move(m)}; }

} // namespace conch::runtime
