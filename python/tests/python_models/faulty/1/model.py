import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            mode = int(pb_utils.get_input_tensor_by_name(request, "MODE").as_numpy()[0])
            x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()
            if mode == 1:
                raise RuntimeError("execute failed on purpose")
            if mode == 2:
                responses.append(pb_utils.InferenceResponse(error=pb_utils.TritonError("bad input on purpose", pb_utils.TritonError.INVALID_ARG)))
            elif mode == 3:
                return []
            elif mode == 4:
                responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", x.reshape(-1)[::2])]))
            else:
                responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", x)]))
        return responses
