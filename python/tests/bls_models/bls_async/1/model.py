import asyncio

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """async execute: sends INPUT0/INPUT1 to add_sub and mul_div at once and
    answers OUTPUT0 = (a + b) + (a * b), OUTPUT1 = (a - b) + (a / b)."""

    async def execute(self, requests):
        responses = []
        for request in requests:
            inputs = [pb_utils.get_input_tensor_by_name(request, "INPUT0"),
                      pb_utils.get_input_tensor_by_name(request, "INPUT1")]
            calls = [pb_utils.InferenceRequest(model_name=m, inputs=inputs,
                                               requested_output_names=["OUTPUT0", "OUTPUT1"])
                     for m in ("add_sub", "mul_div")]
            answers = await asyncio.gather(*(c.async_exec() for c in calls))
            failed = [a for a in answers if a.has_error()]
            if failed:
                responses.append(pb_utils.InferenceResponse(error=failed[0].error()))
                continue
            out = [sum(pb_utils.get_output_tensor_by_name(a, n).as_numpy() for a in answers)
                   for n in ("OUTPUT0", "OUTPUT1")]
            responses.append(pb_utils.InferenceResponse([
                pb_utils.Tensor("OUTPUT0", out[0].astype(np.float32)),
                pb_utils.Tensor("OUTPUT1", out[1].astype(np.float32))]))
        return responses
