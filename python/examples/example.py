"""The upstream tritonfrontend example, run against Conch through the
compatibility packages: start a server over the example repository, serve it
with KServeHttp, infer the ONNX string identity model with tritonclient.http,
stop.

    python example.py [PORT]        # PORT defaults to 8005, as upstream
"""

import os
import sys

import numpy as np
import tritonclient.http as httpclient
import tritonserver
from tritonclient.http import InferenceServerClient
from tritonfrontend import KServeHttp

MODEL_REPOSITORY = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "example_model_repository"
)


def main(port):
    server_options = tritonserver.Options(
        server_id="ExampleServer",
        model_repository=MODEL_REPOSITORY,
        log_error=True,
        log_warn=True,
        log_info=True,
    )
    server = tritonserver.Server(server_options).start(wait_until_ready=True)

    http_options = KServeHttp.Options(port=port)
    with KServeHttp(server, http_options):
        client = InferenceServerClient(f"localhost:{port}")

        input_data = np.array([["Roger Roger"]], dtype=object)
        inputs = [httpclient.InferInput("INPUT0", input_data.shape, "BYTES")]
        inputs[0].set_data_from_numpy(input_data)

        results = client.infer("identity", inputs=inputs)
        print(results.as_numpy("OUTPUT0"))

        client.close()

    server.stop()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8005)
