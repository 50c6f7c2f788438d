import threading

import numpy as np
import triton_python_backend_utils as pb_utils


def _value(request, name):
    return pb_utils.get_input_tensor_by_name(request, name).as_numpy()[0]


def _response(index):
    return pb_utils.InferenceResponse([pb_utils.Tensor("INDEX", np.array([index], np.uint16))])


class TritonPythonModel:
    def initialize(self, args):
        self.threads = []

    def execute(self, requests):
        answers = []
        for request in requests:
            sender = request.get_response_sender()
            for i in range(int(_value(request, "BEFORE"))):
                sender.send(_response(1000 + i))
            if _value(request, "FINAL_BEFORE"):
                sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
            answers.append(_response(0) if _value(request, "RETURN") else None)
            after, final_after = int(_value(request, "AFTER")), bool(_value(request, "FINAL_AFTER"))
            if after or final_after:
                thread = threading.Thread(target=self._later, args=(sender, after, final_after))
                thread.start()
                self.threads.append(thread)
        return answers

    def _later(self, sender, after, final_after):
        try:
            for i in range(after):
                sender.send(_response(2000 + i))
            if final_after:
                sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        except pb_utils.TritonModelException as e:
            pb_utils.Logger.log_info(f"response_sender refused: {e}")

    def finalize(self):
        for thread in self.threads:
            thread.join()
