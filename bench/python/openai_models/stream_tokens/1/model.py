"""The streaming benchmark's model: answers max_tokens tokens (" t"), one
response each, as fast as it can, from execute() itself, so that what the
benchmark measures beyond it is the frontend's."""

import json

import numpy as np
import triton_python_backend_utils as pb_utils

TOKEN = np.array([b" t"], dtype=np.object_)
ONE = np.array([1], dtype=np.int32)


class TritonPythonModel:
    def execute(self, requests):
        final = pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL
        for request in requests:
            raw = pb_utils.get_input_tensor_by_name(request, "sampling_parameters")
            params = json.loads(raw.as_numpy()[0]) if raw is not None else {}
            sender = request.get_response_sender()
            for _ in range(int(params.get("max_tokens", 16))):
                sender.send(pb_utils.InferenceResponse([
                    pb_utils.Tensor("text_output", TOKEN),
                    pb_utils.Tensor("num_output_tokens", ONE)]))
            sender.send(flags=final)
        return None
