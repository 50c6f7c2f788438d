import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """Decoupled, and broken: sends one response and lets go of the request
    without its final one."""

    def execute(self, requests):
        for request in requests:
            request.get_response_sender().send(pb_utils.InferenceResponse(
                [pb_utils.Tensor("OUT", pb_utils.get_input_tensor_by_name(request, "IN").as_numpy())]))
        return None
