# Fails the requests of a batch whose IN is negative, answers the others with
# IN, and answers them in reverse order of arrival (each response is sent
# through the request's sender, last request first), so that a frontend that
# writes answers as they come would get them out of order.
import time

import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        time.sleep(0.005)
        for request in reversed(requests):
            value = pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()
            if value[0][0] < 0:
                response = pb_utils.InferenceResponse(
                    error=pb_utils.TritonError(f"negative input {value[0][0]}"))
            else:
                response = pb_utils.InferenceResponse([pb_utils.Tensor("OUT", value)])
            request.get_response_sender().send(
                response, flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        return None
