"""The CPU gauges (nv_cpu_utilization, nv_cpu_memory_total_bytes,
nv_cpu_memory_used_bytes) and the Options that switch them off or set their
interval."""

from __future__ import annotations

import re

import pytest

import conch

from conftest import identity_config, write_model

GAUGES = ("nv_cpu_utilization", "nv_cpu_memory_total_bytes", "nv_cpu_memory_used_bytes")


def gauge(text: str, name: str) -> float:
    match = re.search(rf"^{name} (\S+)$", text, re.MULTILINE)
    assert match, text
    return float(match.group(1))


def test_the_gauges_hold_values_from_the_start(tmp_path, make_server) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    text = make_server(metrics_interval=50).metrics()
    for name in GAUGES:
        assert f"# TYPE {name} gauge\n" in text
    assert "# HELP nv_cpu_utilization CPU utilization rate [0.0 - 1.0]\n" in text
    total = gauge(text, "nv_cpu_memory_total_bytes")
    assert total > 0
    assert 0 < gauge(text, "nv_cpu_memory_used_bytes") <= total
    assert 0 <= gauge(text, "nv_cpu_utilization") <= 1


@pytest.mark.parametrize("switch", [{"metrics": False}, {"cpu_metrics": False}])
def test_either_flag_switches_them_off(tmp_path, make_server, switch: dict) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    text = make_server(**switch).metrics()
    assert "nv_cpu_" not in text
    # The per-model families stay.
    assert 'nv_inference_count{model="m",version="1"} 0' in text


def test_a_zero_interval_is_refused(tmp_path) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    with pytest.raises(conch.InvalidArgumentError, match="metrics interval"):
        conch.Server(model_repository=str(tmp_path), metrics_interval=0).start()
    with pytest.raises(TypeError):
        conch.Server(model_repository=str(tmp_path), metrics_interval=-1).start()
