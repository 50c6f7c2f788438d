import sys

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """Y = X + 1. When the test put a gate in sys.modules["bls_test_gate"],
    a request first says it arrived and waits for the gate to open."""

    def execute(self, requests):
        gate = sys.modules.get("bls_test_gate")
        if gate is not None:
            gate.arrived.set()
            gate.open.wait(30)
        return [pb_utils.InferenceResponse([pb_utils.Tensor(
                    "Y", pb_utils.get_input_tensor_by_name(r, "X").as_numpy() + np.int32(1))])
                for r in requests]
