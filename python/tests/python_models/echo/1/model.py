import json
import threading

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.args = args
        self.config = json.loads(args["model_config"])
        out = pb_utils.get_output_config_by_name(self.config, "OUTPUT0")
        self.out_dtype = pb_utils.triton_string_to_numpy(out["data_type"])
        self.local = threading.local()

    def execute(self, requests):
        responses = []
        for request in requests:
            data = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            info = {
                "parameters": json.loads(request.parameters()),
                "request_id": request.request_id(),
                "correlation_id": request.correlation_id(),
                "flags": request.flags(),
                "requested": request.requested_output_names(),
                "args": self.args,
                "thread": threading.get_ident(),
                "executes_on_this_thread": self.count_execute(),
            }
            responses.append(
                pb_utils.InferenceResponse(
                    output_tensors=[
                        pb_utils.Tensor("OUTPUT0", data.astype(self.out_dtype)),
                        pb_utils.Tensor("INFO", np.array([json.dumps(info).encode()], dtype=np.object_)),
                    ]
                )
            )
        return responses

    def count_execute(self):
        self.local.count = getattr(self.local, "count", 0) + 1
        return self.local.count

    def finalize(self):
        pass
