"""A BLS pipeline in front of mock_llm, for the OpenAI frontend's tests: it
passes the request on with exec(decoupled=True) and relays each response
as it comes, upper-cased (so a test can tell it went through here)."""

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        final = pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL
        for request in requests:
            sender = request.get_response_sender()
            inputs = [t for t in (pb_utils.get_input_tensor_by_name(request, n)
                                  for n in ("text_input", "stream", "sampling_parameters"))
                      if t is not None]
            bls = pb_utils.InferenceRequest(model_name="mock_llm", inputs=inputs,
                                            requested_output_names=["text_output"])
            for answer in bls.exec(decoupled=True):
                if answer.has_error():
                    sender.send(pb_utils.InferenceResponse(error=answer.error()), flags=final)
                    break
                out = pb_utils.get_output_tensor_by_name(answer, "text_output")
                if out is not None:
                    text = out.as_numpy().reshape(-1)[0].decode().upper()
                    sender.send(pb_utils.InferenceResponse([pb_utils.Tensor(
                        "text_output", np.array([text.encode()], dtype=np.object_))]))
            else:
                sender.send(flags=final)
        return None
