import numpy as np
import triton_python_backend_utils as pb_utils


def address(array):
    return array.__array_interface__["data"][0]


class TritonPythonModel:
    """Sends a fresh array to echo_fp32 by BLS and answers whether the
    response's output is that array's memory: no copy either way."""

    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy() * 2
            answer = pb_utils.InferenceRequest(
                model_name="echo_fp32", requested_output_names=["X"],
                inputs=[pb_utils.Tensor("X", x)]).exec()
            out = pb_utils.get_output_tensor_by_name(answer, "X").as_numpy()
            same = address(out) == address(x) and np.array_equal(out, x)
            responses.append(pb_utils.InferenceResponse(
                [pb_utils.Tensor("SAME", np.array([same]))]))
        return responses
