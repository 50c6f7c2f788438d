"""A non-decoupled text model in the tensor-input convention (TensorRT-LLM's
inputs), for the OpenAI frontend's tests: it answers once, saying what it
got ("max_tokens=7 temperature=0.5 stop=['x'] seed=3 | <prompt>", the stop
words in lower case), and
reports no token counts."""

import numpy as np
import triton_python_backend_utils as pb_utils


def _get(request, name):
    t = pb_utils.get_input_tensor_by_name(request, name)
    return None if t is None else t.as_numpy()


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            prompt = _get(request, "text_input").reshape(-1)[0].decode()
            parts = [f"max_tokens={int(_get(request, 'max_tokens').reshape(-1)[0])}"]
            temperature = _get(request, "temperature")
            if temperature is not None:
                parts.append(f"temperature={float(temperature.reshape(-1)[0]):g}")
            stop = _get(request, "stop_words")
            if stop is not None:
                parts.append(f"stop={[s.decode().lower() for s in stop.reshape(-1)]}")
            seed = _get(request, "seed")
            if seed is not None:
                parts.append(f"seed={int(seed.reshape(-1)[0])}")
            text = " ".join(parts) + " | " + prompt
            out = np.array([[text.encode()]], dtype=np.object_)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("text_output", out)]))
        return responses
