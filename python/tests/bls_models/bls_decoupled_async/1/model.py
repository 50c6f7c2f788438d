import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """As bls_decoupled_sync, from an async execute with async_exec."""

    async def execute(self, requests):
        responses = []
        for request in requests:
            bls = pb_utils.InferenceRequest(
                model_name="square_int32", requested_output_names=["OUT"],
                inputs=[pb_utils.get_input_tensor_by_name(request, "IN")])
            total, count = np.array([0]), 0
            for answer in await bls.async_exec(decoupled=True):
                if answer.has_error():
                    raise pb_utils.TritonModelException(answer.error().message())
                count += 1
                out = pb_utils.get_output_tensor_by_name(answer, "OUT")
                if out is not None:
                    total += out.as_numpy()
            responses.append(pb_utils.InferenceResponse([
                pb_utils.Tensor("SUM", total),
                pb_utils.Tensor("COUNT", np.array([count], np.int32))]))
        return responses
