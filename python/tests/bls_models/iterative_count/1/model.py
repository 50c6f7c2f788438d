import time

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """Iterative sequences: a request with N runs N times, rescheduled after
    each run but the last, which answers RUNS = N and the largest batch the
    request was part of (requests at different iterations share batches)."""

    def initialize(self, args):
        self.runs = {}
        self.max_batch = {}
        self.first = True

    def execute(self, requests):
        # The first run holds the instance for a moment, so that the requests
        # sent right after it wait together and share the next batches,
        # however slowly the client sends them.
        if self.first:
            self.first = False
            time.sleep(0.1)
        responses = []
        for request in requests:
            key = request.request_id()
            n = int(pb_utils.get_input_tensor_by_name(request, "N").as_numpy()[0][0])
            self.runs[key] = self.runs.get(key, 0) + 1
            self.max_batch[key] = max(self.max_batch.get(key, 0), len(requests))
            if self.runs[key] < n:
                request.set_release_flags(pb_utils.TRITONSERVER_REQUEST_RELEASE_RESCHEDULE)
                responses.append(None)
                continue
            runs, batch = self.runs.pop(key), self.max_batch.pop(key)
            responses.append(pb_utils.InferenceResponse([
                pb_utils.Tensor("RUNS", np.array([[runs]], np.int32)),
                pb_utils.Tensor("MAX_BATCH", np.array([[batch]], np.int32))]))
        return responses
