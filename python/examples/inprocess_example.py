"""The upstream in-process example, run against Conch through the
`tritonserver` compatibility package: start a server over the example
repository, infer the ONNX string identity model and the C++ FP32 identity
model, stop.

    python inprocess_example.py
"""

import os

import numpy

import tritonserver

MODEL_REPOSITORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "example_model_repository")


def main():
    server = tritonserver.Server(
        tritonserver.Options(
            server_id="ExampleServer",
            model_repository=MODEL_REPOSITORY,
            log_error=True,
            log_info=True,
            log_warn=True,
        )
    ).start(wait_until_ready=True)

    model = server.model("identity")
    for response in model.infer(inputs={"INPUT0": numpy.array([["Roger Roger"]], dtype=object)}):
        print(response.outputs["OUTPUT0"].to_bytes_array())

    model = server.model("identity_fp32")
    for response in model.infer(inputs={"INPUT0": numpy.arange(16, dtype=numpy.float32).reshape(1, 16)}):
        print(numpy.from_dlpack(response.outputs["OUTPUT0"]))

    server.stop()


if __name__ == "__main__":
    main()
