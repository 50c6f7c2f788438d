// The gRPC ModelInferRequest decoder: any message the protobuf parser
// accepts decodes into a request or an INVALID_ARG.
#include "conch/transports/grpc/decode_infer_request.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  inference::ModelInferRequest message;
  if (!message.ParseFromArray(data, static_cast<int>(size)))
    return 0;
  auto decoded = conch::transports::grpc::decode_infer_request(message, -1);
  (void) decoded;
  return 0;
}
