#pragma once

#include <string>

#include "conch/runtime/result.hpp"

namespace conch::transports::http::cloud {

/// Where the "url" folder of a SageMaker multi-model load puts the model:
/// the repository to register and the model's directory in it.
struct model_folder {
  std::string repository;
  /// Empty when `repository` does not exist (registering it then fails
  /// with the registry's own message).
  std::string directory;
};

/// Reads `url` as Triton's SageMaker frontend does: a folder holding a
/// config.pbtxt is the model itself, and its parent the repository;
/// otherwise the folder is a repository, and the model is the ensemble in
/// it, or its only model directory. The url is made absolute and every
/// symbolic link and "." or ".." in it resolved first; the paths returned
/// are the resolved ones. INVALID_ARG for a url with a NUL byte, for one
/// that resolves to /dev, /proc or /sys or below (also through a model
/// directory of the repository that is such a link), for a repository
/// without a model directory, and for one with several and no single
/// ensemble among them (Triton picks one by directory order there; Conch
/// asks for an unambiguous folder). Only regular files are read as a
/// config.pbtxt, up to 16 MiB. Never throws on file-system errors.
runtime::result<model_folder> locate_model_folder(const std::string& url);

} // namespace conch::transports::http::cloud
