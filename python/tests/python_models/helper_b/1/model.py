import pickle

import numpy
import triton_python_backend_utils as pb_utils

import helper
from . import helper as relative

# What pickle.dumps(helper.VALUE-as-a-global) wrote in a process where
# helper.py was a top-level module.
PICKLED = b"chelper\nVALUE\n."


class TritonPythonModel:
    def execute(self, requests):
        import helper as late

        values = [helper.VALUE, relative.VALUE, late.VALUE, pickle.loads(PICKLED)]
        out = pb_utils.Tensor("OUT", numpy.array(values, dtype=numpy.object_))
        return [pb_utils.InferenceResponse([out]) for _ in requests]
