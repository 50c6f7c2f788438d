import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """Keeps its first request unanswered; the next execute() tries to
    reschedule it (its execute() has returned) and answers both, the first
    with what that raised."""

    def initialize(self, args):
        self.kept = None

    def execute(self, requests):
        for request in requests:
            if self.kept is None:
                self.kept = request
                continue
            try:
                self.kept.set_release_flags(pb_utils.TRITONSERVER_REQUEST_RELEASE_RESCHEDULE)
                text = "no error"
            except pb_utils.TritonModelException as e:
                text = str(e)
            for r, out in ((self.kept, text), (request, "second")):
                r.get_response_sender().send(
                    pb_utils.InferenceResponse(
                        [pb_utils.Tensor("ERROR", np.array([out.encode()], np.object_))]),
                    flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
            self.kept = None
        return None
