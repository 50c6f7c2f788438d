#include "conch/runtime/shm/fault_guard.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <mutex>

#include <sys/mman.h>
#include <unistd.h>

namespace conch::runtime::shm {

namespace {

// One guarded span. `end` is written last when a span is entered and first
// when it leaves, so the handler, which reads `end` before `begin`, never
// sees a range that is not (or no longer) a whole span.
struct slot {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> torn{false};
  std::atomic<bool> taken{false};
};

std::array<slot, guarded_span::capacity> slots;
std::atomic<size_t> in_use{0};

// The disposition SIGBUS had before ours; written under `install_mutex`
// before the handler that reads it is installed.
struct sigaction previous {};
std::mutex install_mutex;

// Set by install(), before the handler that reads it is: nothing in the
// handler may initialise a static.
std::atomic<uintptr_t> page_size{4096};

// Hands a fault that is none of ours to the disposition that was there
// before: its handler, or (for the default action) the default restored, so
// that the faulting access, run again on return, ends the process as it
// would have without us.
void pass_on(int sig, siginfo_t* info, void* context) {
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(sig, info, context);
    return;
  }
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN
      && previous.sa_handler != nullptr) {
    previous.sa_handler(sig);
    return;
  }
  // The default action, also where SIGBUS was ignored: a fault ignored
  // would only repeat for ever.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  if (info->si_code <= 0)  // sent by kill or raise: nothing runs again
    ::raise(sig);
}

void on_sigbus(int sig, siginfo_t* info, void* context) {
  int saved_errno = errno;
  auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  auto page = page_size.load(std::memory_order_relaxed);
  if (info->si_code > 0) {  // raised by the kernel for an access
    for (auto& s : slots) {
      auto end = s.end.load(std::memory_order_acquire);
      if (end == 0)
        continue;
      auto begin = s.begin.load(std::memory_order_acquire);
      // A slot left or taken meanwhile shows a zero or another end.
      if (begin == 0 || s.end.load(std::memory_order_acquire) != end)
        continue;
      if (addr < begin || addr >= end)
        continue;
      // Zero pages from the faulting page to the span's end: the object ends
      // before them, and whatever lies past the first missing page is
      // missing too. The access is retried on return and completes.
      auto from = addr - addr % page;
      void* patched = ::mmap(reinterpret_cast<void*>(from), end - from, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      if (patched == MAP_FAILED)
        break;
      s.torn.store(true, std::memory_order_release);
      errno = saved_errno;
      return;
    }
  }
  pass_on(sig, info, context);
  errno = saved_errno;
}

// Installs on_sigbus unless it is in place already. A handler installed
// after ours (faulthandler.enable(), say) is kept as the one ours passes
// foreign faults to.
bool installed() {
  struct sigaction now {};
  ::sigaction(SIGBUS, nullptr, &now);
  return (now.sa_flags & SA_SIGINFO) != 0 && now.sa_sigaction == &on_sigbus;
}

void install() {
  std::lock_guard guard{install_mutex};
  struct sigaction now {};
  ::sigaction(SIGBUS, nullptr, &now);
  if ((now.sa_flags & SA_SIGINFO) != 0 && now.sa_sigaction == &on_sigbus)
    return;
  page_size.store(static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE)), std::memory_order_relaxed);
  previous = now;
  struct sigaction ours {};
  ours.sa_sigaction = &on_sigbus;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&ours.sa_mask);
  ::sigaction(SIGBUS, &ours, nullptr);
}

} // namespace

void guarded_span::ensure_installed() {
  if (in_use.load(std::memory_order_relaxed) != 0 && !installed())
    install();
}

runtime::result<guarded_span> guarded_span::guard(void* base, size_t size) {
  install();
  for (size_t i = 0; i < slots.size(); ++i) {
    bool expected = false;
    if (!slots[i].taken.compare_exchange_strong(expected, true, std::memory_order_acq_rel))
      continue;
    auto begin = reinterpret_cast<uintptr_t>(base);
    slots[i].torn.store(false, std::memory_order_relaxed);
    slots[i].begin.store(begin, std::memory_order_release);
    slots[i].end.store(begin + size, std::memory_order_release);
    in_use.fetch_add(1, std::memory_order_relaxed);
    return guarded_span{i};
  }
  return runtime::unavailable("too many shared memory regions registered (at most "
                              + std::to_string(capacity) + ")");
}

guarded_span& guarded_span::operator=(guarded_span&& other) noexcept {
  if (this != &other) {
    release();
    slot_ = other.slot_;
    other.slot_ = npos;
  }
  return *this;
}

void guarded_span::release() noexcept {
  if (slot_ == npos)
    return;
  auto& s = slots[slot_];
  slot_ = npos;
  s.end.store(0, std::memory_order_release);
  s.begin.store(0, std::memory_order_release);
  s.taken.store(false, std::memory_order_release);
  in_use.fetch_sub(1, std::memory_order_relaxed);
}

bool guarded_span::torn() const noexcept {
  return slot_ != npos && slots[slot_].torn.load(std::memory_order_acquire);
}

size_t guarded_span::guarded_count() noexcept { return in_use.load(std::memory_order_relaxed); }

} // namespace conch::runtime::shm
