import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """A numpy stand-in for the python_backend examples' "pytorch" model:
    OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 = INPUT0 - INPUT1, with the output
    types read from the configuration."""

    def initialize(self, args):
        import json

        config = json.loads(args["model_config"])
        self.types = [pb_utils.triton_string_to_numpy(
            pb_utils.get_output_config_by_name(config, n)["data_type"])
            for n in ("OUTPUT0", "OUTPUT1")]

    def execute(self, requests):
        responses = []
        for request in requests:
            a = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            b = pb_utils.get_input_tensor_by_name(request, "INPUT1").as_numpy()
            responses.append(pb_utils.InferenceResponse([
                pb_utils.Tensor("OUTPUT0", (a + b).astype(self.types[0])),
                pb_utils.Tensor("OUTPUT1", (a - b).astype(self.types[1]))]))
        return responses
