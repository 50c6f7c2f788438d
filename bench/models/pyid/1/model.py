# The python identity of the peers benchmark (bench/peers): each request's
# INPUT0 back as OUTPUT0, one response per request.
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        return [
            pb_utils.InferenceResponse(
                [pb_utils.Tensor("OUTPUT0", pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy())]
            )
            for r in requests
        ]
