# A python-based backend, as upstream's add_sub_backend: every model with
# backend: "add_sub" runs this file; the operation ("add" or "sub") is read
# from model.json in the model's version directory.
import json
import os

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    @staticmethod
    def auto_complete_config(config):
        for name in ("INPUT0", "INPUT1"):
            config.add_input({"name": name, "data_type": "TYPE_FP32", "dims": [4]})
        config.add_output({"name": "OUTPUT", "data_type": "TYPE_FP32", "dims": [4]})
        config.set_max_batch_size(0)
        return config

    def initialize(self, args):
        path = os.path.join(args["model_repository"], args["model_version"], "model.json")
        with open(path) as f:
            self.operation = json.load(f)["operation"]

    def execute(self, requests):
        responses = []
        for request in requests:
            a = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            b = pb_utils.get_input_tensor_by_name(request, "INPUT1").as_numpy()
            out = a + b if self.operation == "add" else a - b
            responses.append(pb_utils.InferenceResponse(
                [pb_utils.Tensor("OUTPUT", out.astype(np.float32))]))
        return responses
