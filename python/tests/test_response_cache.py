"""The response cache as Triton's users configure and read it:
Options.cache_config and `conch serve --cache-config`, a model's
response_cache setting, and the cache fields of the statistics."""

from __future__ import annotations

import argparse
import pathlib

import numpy
import pytest
import tritonclient.http as httpclient

import conch
from conch import _serve
from conch.frontend import KServeHttp
from conftest import EXAMPLE_REPOSITORY, write_model

CACHED = """
backend: "identity"
max_batch_size: 0
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ -1 ] } ]
response_cache { enable: true }
"""


def test_repeated_requests_are_served_from_the_cache(tmp_path: pathlib.Path) -> None:
    write_model(tmp_path, "cached", CACHED)
    server = conch.Server(model_repository=str(tmp_path),
                          cache_config={"local": {"size": 1 << 20}}).start(wait_until_ready=True)
    try:
        values = numpy.arange(8, dtype=numpy.float32)
        model = server.model("cached")
        for _ in range(3):
            response = list(model.infer(inputs={"INPUT0": values}))[0]
            assert numpy.from_dlpack(response.outputs["OUTPUT0"]).tolist() == values.tolist()
        with KServeHttp(server, KServeHttp.Options(port=0, thread_count=1)) as http:
            client = httpclient.InferenceServerClient(f"127.0.0.1:{http.port}")
            stats = client.get_inference_statistics("cached")["model_stats"][0]
        assert int(stats["execution_count"]) == 1
        assert int(stats["inference_stats"]["cache_hit"]["count"]) == 2
        assert int(stats["inference_stats"]["cache_miss"]["count"]) == 1
        assert int(stats["inference_stats"]["success"]["count"]) == 3
    finally:
        server.stop()


def test_only_the_local_cache_is_built_in(tmp_path: pathlib.Path) -> None:
    write_model(tmp_path, "cached", CACHED)
    with pytest.raises(conch.UnsupportedError, match="local response cache only, not redis"):
        conch.Server(model_repository=str(tmp_path),
                     cache_config={"redis": {"host": "localhost"}}).start()
    with pytest.raises(conch.InvalidArgumentError, match="must give 'size'"):
        conch.Server(model_repository=str(tmp_path), cache_config={"local": {}}).start()


def parse(*flags: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    _serve.add_serve_arguments(parser)
    return parser.parse_args(["--model-repository", str(EXAMPLE_REPOSITORY), *flags])


def test_serve_cache_flags() -> None:
    options = _serve._options(parse("--cache-config", "local,size=4096"))
    assert options.cache_config == {"local": {"size": "4096"}}
    assert options._to_native().response_cache_byte_size == 4096
    options = _serve._options(parse("--response-cache-byte-size", "2048"))
    assert options._to_native().response_cache_byte_size == 2048
    assert _serve._options(parse())._to_native().response_cache_byte_size == 0
    with pytest.raises(ValueError, match="incompatible flags"):
        _serve._options(parse("--cache-config", "local,size=1", "--response-cache-byte-size", "1"))
