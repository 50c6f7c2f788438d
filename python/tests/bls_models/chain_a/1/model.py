import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """Y = 1 + what chain_b answers for X (a BLS request)."""

    def execute(self, requests):
        responses = []
        for request in requests:
            answer = pb_utils.InferenceRequest(
                model_name="chain_b", requested_output_names=["Y"],
                inputs=[pb_utils.get_input_tensor_by_name(request, "X")]).exec()
            if answer.has_error():
                responses.append(pb_utils.InferenceResponse(error=answer.error()))
                continue
            y = pb_utils.get_output_tensor_by_name(answer, "Y").as_numpy()
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", (y + 1).astype(np.int32))]))
        return responses
