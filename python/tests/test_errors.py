"""The error classes and the one mapping from Conch's codes to them."""

from __future__ import annotations

import pytest

import conch
from conch import _conch

# Every code of conch::runtime::errc but ok, with the class it must raise.
CODES = {
    1: conch.InternalError,
    2: conch.NotFoundError,
    3: conch.InvalidArgumentError,
    4: conch.UnavailableError,
    5: conch.UnsupportedError,
    6: conch.AlreadyExistsError,
    7: conch.CancelledError,
    8: conch.UnknownError,
}


@pytest.mark.parametrize("code,cls", sorted(CODES.items()))
def test_every_code_maps_to_its_class(code: int, cls: type) -> None:
    error = _conch.exception_for(code, "the message")
    assert type(error) is cls
    assert error.args == ("the message",)


def test_codes_outside_the_table_are_rejected() -> None:
    for code in (0, 9):
        with pytest.raises(ValueError):
            _conch.exception_for(code, "x")


def test_every_class_derives_from_triton_error_and_not_runtime_error() -> None:
    for cls in CODES.values():
        assert issubclass(cls, conch.TritonError)
    assert not issubclass(conch.TritonError, RuntimeError)
    assert issubclass(conch.TritonError, Exception)


def test_cancelled_error_is_caught_as_unknown_error() -> None:
    assert issubclass(conch.CancelledError, conch.UnknownError)


def test_error_classes_live_in_the_conch_namespace() -> None:
    assert conch.NotFoundError.__module__ == "conch"
    assert conch.NotFoundError.__name__ == "NotFoundError"
