#pragma once

#include <string>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/data_type.hpp"
#include "conch/runtime/result.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

/// Packs the typed `contents` of input `name` into the raw layout of `type`
/// (little-endian, row-major; BYTES length-prefixed), checking that it holds
/// `element_count` elements in the field the type reads. FP16 and BF16 have
/// no typed field: INVALID_ARG.
runtime::result<runtime::buffer> pack_typed_contents(const std::string& name,
                                                     runtime::data_type type,
                                                     int64_t element_count,
                                                     const inference::InferTensorContents& contents);

} // namespace conch::transports::grpc
