#pragma once

namespace conch::runtime {

/// True on a thread that runs model code that may block (a blocking
/// instance's worker): work that another thread can do instead, such as
/// writing a gRPC call's answer, should go there, so the model's next
/// request does not wait for it. Set by the thread itself.
inline thread_local bool this_thread_runs_models = false;

} // namespace conch::runtime
