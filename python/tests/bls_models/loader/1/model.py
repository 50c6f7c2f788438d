import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """Runs the model loading API: ACTION "load", "unload" or "ready" on the
    model NAME; RESULT is "ready" / "not ready" or the error."""

    def initialize(self, args):
        # Allowed in initialize, as in Triton.
        self.started_with = pb_utils.is_model_ready("add_sub")

    def execute(self, requests):
        responses = []
        for request in requests:
            action = pb_utils.get_input_tensor_by_name(request, "ACTION").as_numpy()[0].decode()
            name = pb_utils.get_input_tensor_by_name(request, "NAME").as_numpy()[0].decode()
            try:
                if action == "load":
                    pb_utils.load_model(name)
                elif action == "unload":
                    # Returns once the unload began; the model is not ready
                    # from then on, as in Triton.
                    pb_utils.unload_model(name)
                result = "ready" if pb_utils.is_model_ready(name) else "not ready"
            except pb_utils.TritonModelException as e:
                result = str(e)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor(
                "RESULT", np.array([result.encode()], dtype=np.object_))]))
        return responses
