"""An embedding model in vLLM's convention, for the OpenAI frontend's
tests: the vector of a text is [its length, its word count, 0.5, ...]
(`dimensions` long, default 4); token counts are its words."""

import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            raw = pb_utils.get_input_tensor_by_name(request, "embedding_request").as_numpy()[0]
            body = json.loads(raw.decode())
            item = body["input"]
            text = item if isinstance(item, str) else " ".join(str(t) for t in item)
            dims = body.get("pooling_params", {}).get("dimensions", [4])[0]
            vector = [float(len(text)), float(len(text.split()))] + [0.5] * (dims - 2)
            tensors = [pb_utils.Tensor("text_output",
                                       np.array([json.dumps(vector[:dims]).encode()],
                                                dtype=np.object_)),
                       pb_utils.Tensor("num_input_tokens",
                                       np.array([len(text.split())], dtype=np.int32))]
            responses.append(pb_utils.InferenceResponse(tensors))
        return responses
