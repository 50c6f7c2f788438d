#pragma once

namespace conch::transports::grpc {

/// Turns off absl::Mutex's deadlock detection for the whole process, once.
/// gRPC's locks are absl::Mutex; an Abseil built without NDEBUG (Debian's)
/// leaves the detection on, and every lock then updates a graph of which
/// lock was taken under which (GraphCycles in a profile: 3–4% of a gRPC
/// server's CPU under load). Release builds of Abseil, the ones gRPC ships
/// with, have it off. Called before a gRPC server starts.
void use_release_mode_locks() noexcept;

} // namespace conch::transports::grpc
