import asyncio

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """Decoupled, with an async execute: a request with ROLE "wait" waits for
    one with ROLE "set", which only works if their coroutines run side by
    side on the instance's event loop."""

    def initialize(self, args):
        self.event = None

    async def execute(self, requests):
        if self.event is None:
            self.event = asyncio.Event()
        for request in requests:
            role = pb_utils.get_input_tensor_by_name(request, "ROLE").as_numpy()[0].decode()
            sender = request.get_response_sender()
            if role == "wait":
                await asyncio.wait_for(self.event.wait(), 30)
            else:
                self.event.set()
            sender.send(pb_utils.InferenceResponse([pb_utils.Tensor(
                "DONE", np.array([role.encode()], dtype=np.object_))]),
                flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
