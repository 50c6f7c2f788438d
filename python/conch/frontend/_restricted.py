"""Restricted endpoint groups (a Conch addition): requests to the features
of a group must carry the group's header with its value, else they get 403.

The shape is the one proposed for upstream's ``tritonfrontend`` (Feature,
FeatureGroup, RestrictedFeatures), which upstream never merged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Optional, Union

from .._errors import InvalidArgumentError

__all__ = ["Feature", "FeatureGroup", "RestrictedFeatures"]


class Feature(str, Enum):
    """An endpoint group of the KServe frontends."""

    HEALTH = "health"
    METADATA = "metadata"
    INFERENCE = "inference"
    SHM_MEMORY = "shared-memory"
    MODEL_CONFIG = "model-config"
    MODEL_REPOSITORY = "model-repository"
    STATISTICS = "statistics"
    TRACE = "trace"
    LOGGING = "logging"


FeatureLike = Union[Feature, str]


def _feature(value: FeatureLike) -> Feature:
    try:
        return Feature(value)
    except ValueError:
        names = ", ".join(f.value for f in Feature)
        raise InvalidArgumentError(f"unknown feature {value!r}; one of: {names}") from None


@dataclass
class FeatureGroup:
    """Features that require header `key` with value `value`."""

    key: str
    value: str
    features: list[Feature] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.features = [_feature(f) for f in self.features]


class RestrictedFeatures:
    """The restricted groups of one frontend. A feature belongs to at most
    one group."""

    def __init__(self, groups: Optional[Iterable[FeatureGroup]] = None) -> None:
        self._groups: list[FeatureGroup] = []
        for group in groups or ():
            self.add_feature_group(group)

    def create_feature_group(self, key: str, value: str, features: Iterable[FeatureLike]) -> None:
        """Adds a group that restricts `features` to requests with `key: value`."""
        self.add_feature_group(FeatureGroup(key, value, list(features)))

    def add_feature_group(self, group: FeatureGroup) -> None:
        """Adds a group; raises InvalidArgumentError for a feature already restricted."""
        for feature in group.features:
            if self.has_feature(feature):
                raise InvalidArgumentError(
                    f"feature {feature.value!r} is already in a restricted group"
                )
        self._groups.append(group)

    def has_feature(self, feature: FeatureLike) -> bool:
        """True when `feature` is restricted by a group."""
        wanted = _feature(feature)
        return any(wanted in group.features for group in self._groups)

    def remove_features(self, features: Iterable[FeatureLike]) -> None:
        """Lifts the restriction of `features`; groups left empty are dropped."""
        gone = {_feature(f) for f in features}
        for group in self._groups:
            group.features = [f for f in group.features if f not in gone]
        self._groups = [g for g in self._groups if g.features]

    def get_feature_groups(self) -> list[FeatureGroup]:
        """The groups, in the order they were added."""
        return list(self._groups)

    def _to_native(self) -> list[tuple[str, str, list[str]]]:
        return [(g.key, g.value, [f.value for f in g.features]) for g in self._groups]

    def __bool__(self) -> bool:
        return bool(self._groups)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RestrictedFeatures):
            return NotImplemented
        return self._groups == other._groups

    def __repr__(self) -> str:
        return f"RestrictedFeatures({self._groups!r})"
