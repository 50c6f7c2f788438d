import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """Runs the model named by MODEL_NAME on INPUT0 and INPUT1 (a BLS request)
    and answers with its outputs, or with its error."""

    def execute(self, requests):
        responses = []
        for request in requests:
            name = pb_utils.get_input_tensor_by_name(request, "MODEL_NAME").as_numpy()[0]
            bls = pb_utils.InferenceRequest(
                model_name=name.decode(),
                requested_output_names=["OUTPUT0", "OUTPUT1"],
                inputs=[pb_utils.get_input_tensor_by_name(request, "INPUT0"),
                        pb_utils.get_input_tensor_by_name(request, "INPUT1")])
            answer = bls.exec()
            if answer.has_error():
                responses.append(pb_utils.InferenceResponse(error=answer.error()))
                continue
            responses.append(pb_utils.InferenceResponse([
                pb_utils.get_output_tensor_by_name(answer, "OUTPUT0"),
                pb_utils.get_output_tensor_by_name(answer, "OUTPUT1")]))
        return responses
