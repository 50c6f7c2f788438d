# In the style of Triton's QA models: execute() runs a unittest module with
# unittest.main(), which parses sys.argv, and answers whether it passed.
import unittest

import numpy as np
import triton_python_backend_utils as pb_utils

from . import argument_checks


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for _ in requests:
            test = unittest.main(module=argument_checks, exit=False)
            passed = test.result.wasSuccessful()
            responses.append(pb_utils.InferenceResponse(
                [pb_utils.Tensor("OUTPUT0", np.array([passed], dtype=np.bool_))]))
        return responses
