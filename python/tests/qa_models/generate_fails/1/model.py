import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        for request in requests:
            sender = request.get_response_sender()
            prompt = pb_utils.get_input_tensor_by_name(request, "PROMPT").as_numpy()
            count = int(pb_utils.get_input_tensor_by_name(request, "REPETITION").as_numpy()[0])
            for _ in range(count):
                sender.send(pb_utils.InferenceResponse(
                    [pb_utils.Tensor("TEXT", np.array(prompt, dtype=np.object_))]))
            code = json.loads(request.parameters()).get("ERROR_CODE", "INTERNAL")
            error = pb_utils.TritonError("An Error Occurred", getattr(pb_utils.TritonError, code))
            sender.send(pb_utils.InferenceResponse(error=error),
                        flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        return None
