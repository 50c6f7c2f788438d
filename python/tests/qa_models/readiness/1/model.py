# An identity model with a user-defined readiness check, as in Triton's
# L0_backend_python model_readiness test: its config says what is_ready()
# answers and how long it takes.
import asyncio
import json
import time

import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        params = json.loads(args["model_config"])["parameters"]
        self.behaviour = params["READINESS_FN_RETURN_VALUE"]["string_value"]
        self.delay = float(params["READINESS_FN_DELAY_SECS"]["string_value"])
        if self.behaviour == "coroutine":
            self.is_ready = self._is_ready_async

    async def _is_ready_async(self):
        await asyncio.sleep(self.delay)
        return True

    def is_ready(self):
        time.sleep(self.delay)
        if self.behaviour == "false":
            return False
        if self.behaviour == "exception":
            raise RuntimeError("is_ready failed on purpose")
        if self.behaviour == "non_boolean":
            return "ready"
        if self.behaviour == "system_exit":
            raise SystemExit(3)
        return True

    def execute(self, requests):
        return [
            pb_utils.InferenceResponse([
                pb_utils.Tensor("OUTPUT0",
                                pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy())
            ])
            for r in requests
        ]
