import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """Decoupled iterative sequences: a request with N gets one response per
    run, STEP = 1..N, the last one final; it is rescheduled after the others."""

    def initialize(self, args):
        self.steps = {}

    def execute(self, requests):
        for request in requests:
            key = request.request_id()
            n = int(pb_utils.get_input_tensor_by_name(request, "N").as_numpy()[0])
            step = self.steps.get(key, 0) + 1
            sender = request.get_response_sender()
            response = pb_utils.InferenceResponse([pb_utils.Tensor("STEP", np.array([step], np.int32))])
            if step < n:
                self.steps[key] = step
                sender.send(response)
                request.set_release_flags(pb_utils.TRITONSERVER_REQUEST_RELEASE_RESCHEDULE)
            else:
                self.steps.pop(key, None)
                sender.send(response, flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        return None
