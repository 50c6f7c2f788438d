# What Triton's python backend raises for wrongly typed arguments, and the
# names of its Logger (upstream's argument_validation model checks the same).
import sys
import unittest

import numpy as np
import triton_python_backend_utils as pb_utils


class ArgumentChecks(unittest.TestCase):
    def test_the_command_line_is_tritons(self):
        self.assertEqual(sys.argv, [""])

    def test_logger_levels(self):
        logger = pb_utils.Logger
        self.assertEqual([int(logger.INFO), int(logger.WARNING), int(logger.ERROR),
                          int(logger.VERBOSE)], [0, 1, 2, 3])
        self.assertIs(logger.LogLevel.ERROR, logger.ERROR)
        logger.log("Specific Msg!", logger.INFO)
        logger.log("Default Msg!")
        logger.log_info("Info Msg!")
        logger.log_warn("Warning Msg!")
        logger.log_error("Error Msg!")
        logger.log_verbose("Verbose Msg!")
        with self.assertRaises(TypeError):
            logger.log(123)
        with self.assertRaises(TypeError):
            logger.log("message", 2)
        with self.assertRaises(TypeError):
            logger.log("message", "INFO")
        with self.assertRaises(TypeError):
            logger.log_info(None)

    def test_tensor(self):
        array = np.ones(4, dtype=np.float32)
        with self.assertRaises(TypeError):
            pb_utils.Tensor(None, array)
        with self.assertRaises(TypeError):
            pb_utils.Tensor("OUTPUT0", None)
        with self.assertRaises(TypeError):
            pb_utils.Tensor("OUTPUT0", [1, 2])
        with self.assertRaises(TypeError):
            pb_utils.Tensor("", None)
        with self.assertRaises(TypeError):
            pb_utils.Tensor.from_dlpack("OUTPUT0", None)
        with self.assertRaises(TypeError):
            pb_utils.Tensor.from_dlpack("", None)
        pb_utils.Tensor("OUTPUT0", array)

    def test_inference_request(self):
        tensor = pb_utils.Tensor("INPUT0", np.ones(4, dtype=np.float32))
        good = dict(inputs=[tensor], model_name="m", requested_output_names=["OUTPUT0"])
        with self.assertRaises(pb_utils.TritonModelException):
            pb_utils.InferenceRequest(**{**good, "inputs": [None]})
        for name in ("inputs", "model_name", "requested_output_names", "request_id",
                     "model_version", "flags", "correlation_id"):
            with self.assertRaises(TypeError, msg=name):
                pb_utils.InferenceRequest(**{**good, name: None})
        with self.assertRaises(TypeError):
            pb_utils.InferenceRequest(**{**good, "requested_output_names": [None]})
        with self.assertRaises(TypeError):
            pb_utils.InferenceRequest(**good, correleation_id=1)
        with self.assertRaises(TypeError):
            pb_utils.InferenceRequest(model_name="m", requested_output_names=[])
        with self.assertRaises(pb_utils.TritonModelException):
            pb_utils.InferenceRequest(**{**good, "correlation_id": 1.5})
        pb_utils.InferenceRequest(requested_output_names=[], inputs=[], model_name="m")
        created = pb_utils.InferenceRequest(**good, parameters="")
        with self.assertRaises(pb_utils.TritonModelException):
            created.get_response_sender()  # it carries no request of a client
        pb_utils.InferenceRequest(**good, correlation_id="sequence-7", request_id="r")

    def test_inference_response(self):
        tensor = pb_utils.Tensor("OUTPUT0", np.ones(4, dtype=np.float32))
        with self.assertRaises(pb_utils.TritonModelException):
            pb_utils.InferenceResponse(output_tensors=[None])
        with self.assertRaises(TypeError):
            pb_utils.InferenceResponse(output_tensors=None)
        with self.assertRaises(TypeError):
            pb_utils.InferenceResponse([tensor], error="not a TritonError")
        pb_utils.InferenceResponse(output_tensors=[])
        pb_utils.InferenceResponse([tensor])
        pb_utils.InferenceResponse()


if __name__ == "__main__":
    unittest.main()
