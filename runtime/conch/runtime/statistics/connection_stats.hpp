#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace conch::runtime::statistics {

/// Why a transport closed a connection or refused a request on its own.
enum class connection_timeout : uint8_t {
  header,     // the request line and headers did not arrive in time
  body,       // the body stopped arriving
  keepalive,  // an idle connection between requests
  write,      // the client stopped reading its answers
  drain,      // a stop's drain deadline passed with the client still busy
};
inline constexpr size_t connection_timeout_kinds = 5;

/// The name of `kind` in metric labels ("header", "body", ...).
constexpr const char* to_string(connection_timeout kind) noexcept {
  constexpr std::array<const char*, connection_timeout_kinds> names{
    "header", "body", "keepalive", "write", "drain"};
  return names[static_cast<size_t>(kind)];
}

/// Why a transport refused a request before it reached the server.
enum class request_refusal : uint8_t {
  inflight,       // too many requests waiting on the server
  input_budget,   // too many request bytes held at once
  body_size,      // one body over the maximum input size
  header_size,    // request line and headers over the maximum
};
inline constexpr size_t request_refusal_kinds = 4;

constexpr const char* to_string(request_refusal kind) noexcept {
  constexpr std::array<const char*, request_refusal_kinds> names{
    "inflight", "input_budget", "body_size", "header_size"};
  return names[static_cast<size_t>(kind)];
}

/// What one frontend's transport counts about its edge: its connections,
/// the limits that closed or refused some, and the bytes it holds. Plain
/// atomics, updated by the transport's threads without a lock and read by
/// whoever exports them (connection_metrics). Counters only grow; the
/// gauges go up and down.
struct connection_stats {
  /// The port the transport listens on (a label), set when it starts.
  std::atomic<int> port{0};

  // -- gauges ----------------------------------------------------------------
  std::atomic<int64_t> open{0};            // connections open now
  std::atomic<int64_t> response_bytes{0};  // answer bytes waiting to be sent

  // -- counters --------------------------------------------------------------
  std::atomic<int64_t> accepted{0};        // connections accepted
  std::atomic<int64_t> refused{0};         // connections closed at once: over the cap
  std::atomic<int64_t> backlog_closes{0};  // streams ended: their client did not read
  std::array<std::atomic<int64_t>, connection_timeout_kinds> timeouts{};
  std::array<std::atomic<int64_t>, request_refusal_kinds> refusals{};

  void count(connection_timeout kind) noexcept {
    timeouts[static_cast<size_t>(kind)].fetch_add(1, std::memory_order_relaxed);
  }
  void count(request_refusal kind) noexcept {
    refusals[static_cast<size_t>(kind)].fetch_add(1, std::memory_order_relaxed);
  }
  int64_t timed_out(connection_timeout kind) const noexcept {
    return timeouts[static_cast<size_t>(kind)].load(std::memory_order_relaxed);
  }
  int64_t refused_requests(request_refusal kind) const noexcept {
    return refusals[static_cast<size_t>(kind)].load(std::memory_order_relaxed);
  }
};

/// A budget of bytes shared by every connection of a frontend: request
/// bytes are taken from it as they arrive and given back when their request
/// is done. Thread-safe, lock-free.
class byte_budget {
 public:
  /// A budget of `limit` bytes; 0: unlimited (the bytes are still counted).
  explicit byte_budget(size_t limit) noexcept : limit_(limit) {}
  byte_budget(const byte_budget&) = delete;
  byte_budget& operator=(const byte_budget&) = delete;

  /// Takes `n` bytes; false, taking nothing, when they would pass the limit.
  bool try_take(size_t n) noexcept {
    auto delta = static_cast<int64_t>(n);
    auto before = used_.fetch_add(delta, std::memory_order_relaxed);
    if (limit_ == 0 || static_cast<size_t>(before + delta) <= limit_)
      return true;
    used_.fetch_sub(delta, std::memory_order_relaxed);
    return false;
  }

  /// Gives back `n` bytes taken before.
  void give(size_t n) noexcept { used_.fetch_sub(static_cast<int64_t>(n), std::memory_order_relaxed); }

  /// Bytes taken and not given back.
  int64_t used() const noexcept { return used_.load(std::memory_order_relaxed); }

  size_t limit() const noexcept { return limit_; }

 private:
  size_t limit_;
  std::atomic<int64_t> used_{0};
};

/// Bytes taken from a byte_budget, given back when the ticket goes. Keeps
/// its budget alive, so a request may outlive the transport that read it.
class byte_ticket {
 public:
  byte_ticket() = default;
  byte_ticket(byte_ticket&& other) noexcept
    : budget_(std::move(other.budget_)), bytes_(std::exchange(other.bytes_, 0)) {}
  byte_ticket& operator=(byte_ticket&& other) noexcept {
    if (this != &other) {
      release();
      budget_ = std::move(other.budget_);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  ~byte_ticket() { release(); }

  /// Adds `n` bytes from `budget` (the ticket's budget from then on); false,
  /// adding nothing, when the budget has not got them.
  bool take(const std::shared_ptr<byte_budget>& budget, size_t n) noexcept {
    if (budget == nullptr)
      return true;
    if (budget_ != nullptr && budget_ != budget)
      return false;
    if (!budget->try_take(n))
      return false;
    budget_ = budget;
    bytes_ += n;
    return true;
  }

  /// Gives everything back now.
  void release() noexcept {
    if (budget_ != nullptr && bytes_ > 0)
      budget_->give(bytes_);
    bytes_ = 0;
  }

  size_t bytes() const noexcept { return bytes_; }

 private:
  std::shared_ptr<byte_budget> budget_;
  size_t bytes_ = 0;
};

} // namespace conch::runtime::statistics
