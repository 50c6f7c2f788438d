"""Model queries: readiness, metadata, configuration, statistics, properties."""

from __future__ import annotations


import numpy
import pytest

import conch


def test_metadata_lists_inputs_and_outputs(example_server: conch.Server) -> None:
    metadata = example_server.model("identity_fp32").metadata()
    assert metadata["name"] == "identity_fp32"
    assert metadata["versions"] == ["1"]
    assert metadata["inputs"] == [{"name": "INPUT0", "datatype": "FP32", "shape": [-1, 16]}]
    assert metadata["outputs"] == [{"name": "OUTPUT0", "datatype": "FP32", "shape": [-1, 16]}]


def test_config_is_protobuf_json(example_server: conch.Server) -> None:
    config = example_server.model("simple").config()
    assert config["name"] == "simple"
    assert config["max_batch_size"] == 8
    assert config["input"][0]["data_type"] == "TYPE_INT32"
    assert config["input"][0]["dims"] == [16]


def test_only_config_version_1_exists(example_server: conch.Server) -> None:
    with pytest.raises(conch.InvalidArgumentError):
        example_server.model("simple").config(config_version=2)


def test_ready_is_false_for_an_unknown_model(example_server: conch.Server) -> None:
    assert example_server.model("simple").ready()
    assert not example_server.model("nope").ready()
    assert not example_server.model("simple", 5).ready()


def test_queries_of_an_unknown_model_raise_not_found(example_server: conch.Server) -> None:
    model = example_server.model("nope")
    with pytest.raises(conch.NotFoundError, match="unknown model"):
        model.metadata()
    with pytest.raises(conch.NotFoundError, match="unknown model"):
        model.config()


def test_infer_of_an_unknown_model_raises_at_call_time(example_server: conch.Server) -> None:
    with pytest.raises(conch.NotFoundError, match="unknown model"):
        example_server.model("nope").infer(inputs={"INPUT0": numpy.zeros(1)})


def test_batch_and_transaction_properties(example_server: conch.Server) -> None:
    assert example_server.model("simple").batch_properties() == conch.ModelBatchFlag.FIRST_DIM
    assert example_server.model("repeat_int32").batch_properties() == conch.ModelBatchFlag.UNKNOWN
    assert (
        example_server.model("simple").transaction_properties()
        == conch.ModelTxnPropertyFlag.ONE_TO_ONE
    )
    assert (
        example_server.model("repeat_int32").transaction_properties()
        == conch.ModelTxnPropertyFlag.DECOUPLED
    )


def test_statistics_count_inferences(example_server: conch.Server) -> None:
    model = example_server.model("identity_fp32")
    before = model.statistics()["model_stats"][0]
    list(model.infer(inputs={"INPUT0": numpy.ones((2, 16), dtype=numpy.float32)}))
    # The request is counted before its response is delivered: no waiting.
    stats = model.statistics()["model_stats"][0]
    assert (stats["name"], stats["version"]) == ("identity_fp32", "1")
    success = stats["inference_stats"]["success"]["count"]
    assert success == before["inference_stats"]["success"]["count"] + 1
    assert stats["inference_count"] == before["inference_count"] + 2
    assert stats["execution_count"] == before["execution_count"] + 1
    for i in range(2, 50):
        list(model.infer(inputs={"INPUT0": numpy.ones((1, 16), dtype=numpy.float32)}))
        stats = model.statistics()["model_stats"][0]
        assert stats["execution_count"] == before["execution_count"] + i


def test_create_request_ignores_a_model_argument(example_server: conch.Server) -> None:
    model = example_server.model("identity_fp32")
    request = model.create_request(model="other", request_id="7")
    assert request.model is model
    assert request.request_id == "7"
