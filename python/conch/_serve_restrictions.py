"""``conch serve --http-restricted-api`` and ``--grpc-restricted-protocol``:
Triton's "<groups>:<key>=<value>" arguments, read by Triton's rules and
answered with its texts, as the frontends' RestrictedFeatures."""

from __future__ import annotations

from typing import Sequence

from .frontend._restricted import Feature, FeatureGroup, RestrictedFeatures

__all__ = ["restricted_features"]

_GROUPS = {f.value for f in Feature}


def _split(arg: str, option: str) -> tuple[str, str, str]:
    """(groups, key, value) of one argument: the groups up to the first ':',
    the key up to the first '=' after it, the value after that (which may
    hold ':' and '='); ValueError when a part is missing or empty."""
    colon = arg.find(":")
    equals = arg.find("=", colon + 1) if colon >= 0 else -1
    if colon < 0 or equals < 0 or colon == 0 or equals == colon + 1 or equals == len(arg) - 1:
        raise ValueError(f"--{option} option format is '<config name>:<setting>=<value>'. "
                         f"Got {arg}")
    return arg[:colon], arg[colon + 1:equals], arg[equals + 1:]


def restricted_features(values: Sequence[str], option: str, kind: str) -> RestrictedFeatures:
    """The restricted groups that the repeated `--option` arguments `values`
    give; `kind` names a group in errors ("api" for HTTP, "protocol" for
    gRPC). ValueError, with Triton's text, for a malformed argument, an
    unknown group, or a group named twice (in one argument or two)."""
    taken: set[str] = set()
    groups = []
    for arg in values:
        names, key, value = _split(arg, option)
        features = []
        for name in names.split(","):
            if name not in _GROUPS:
                raise ValueError(f"unknown restricted {kind} '{name}'")
            if name in taken:
                raise ValueError(f"restricted {kind} '{name}' can not be specified in "
                                 "multiple config groups")
            taken.add(name)
            features.append(Feature(name))
        groups.append(FeatureGroup(key, value, features))
    return RestrictedFeatures(groups)
