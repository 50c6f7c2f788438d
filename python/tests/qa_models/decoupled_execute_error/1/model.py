import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.finalized = False

    def execute(self, requests):
        for i, request in enumerate(requests):
            sender = request.get_response_sender()
            data = pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()
            out = pb_utils.Tensor("OUT", data)
            if data.size and data[0] < 0:
                error = pb_utils.TritonError("An error occured during execution")
                sender.send(pb_utils.InferenceResponse(output_tensors=[out], error=error))
            else:
                sender.send(pb_utils.InferenceResponse(output_tensors=[out]))
            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        return None

    def finalize(self):
        pb_utils.Logger.log_info("decoupled_execute_error finalized")
