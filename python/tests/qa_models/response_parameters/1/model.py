import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            text = pb_utils.get_input_tensor_by_name(request, "PARAMS").as_numpy()[0]
            params = json.loads(text)
            if isinstance(params, dict):
                params = {int(k) if k.isdigit() else k: v for k, v in params.items()}
            out = pb_utils.Tensor("OUT", np.array([text], dtype=np.object_))
            try:
                responses.append(pb_utils.InferenceResponse([out], parameters=params))
            except Exception as e:
                error = pb_utils.TritonError(message=str(e), code=pb_utils.TritonError.INVALID_ARG)
                responses.append(pb_utils.InferenceResponse(error=error))
        return responses
