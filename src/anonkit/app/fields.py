"""The typed fields of the app's pages read as values: ``key = value`` pairs (a TOML
inline table body) and hierarchy builder tables.

Shared by the hierarchy editor (:mod:`anonkit.app.preview`) and the privacy settings
(:mod:`anonkit.app.workflow`); errors name the field.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from typing import Any

from anonkit.app.export import toml_value
from anonkit.core.hierarchy_builders import BUILDERS
from anonkit.exceptions import ConfigError, UnknownNameError

__all__ = ["builder_text", "parse_builder", "parse_pairs"]


def builder_text(spec: Mapping[str, Any]) -> str:
    """The parameters of a builder table (without ``type``) as a TOML inline table body.

    Examples
    --------
    >>> builder_text({"type": "intervals", "widths": [5, 10]})
    'widths = [5, 10]'
    """
    return ", ".join(f"{k} = {toml_value(v)}" for k, v in spec.items() if k != "type")


def parse_builder(kind: str, text: str) -> dict[str, Any]:
    """A builder table from its type and the parameters typed as ``key = value, ...``.

    Raises
    ------
    UnknownNameError
        If ``kind`` is not a builder.
    ConfigError
        If ``text`` is not a TOML inline table body.

    Examples
    --------
    >>> parse_builder("intervals", "widths = [5, 10]")
    {'type': 'intervals', 'widths': [5, 10]}
    """
    if kind not in BUILDERS:
        raise UnknownNameError("hierarchy type", kind, list(BUILDERS))
    return {"type": kind, **parse_pairs(text, f"the {kind} parameters")}


def parse_pairs(text: str, what: str) -> dict[str, Any]:
    """``key = value, ...`` typed in a field (a TOML inline table body) as a dict.

    Raises
    ------
    ConfigError
        Naming ``what`` when ``text`` does not read as TOML pairs.

    Examples
    --------
    >>> parse_pairs('name = "average_risk", threshold = 0.05', "the models")
    {'name': 'average_risk', 'threshold': 0.05}
    """
    if not text.strip():
        return {}
    try:
        parsed: dict[str, Any] = tomllib.loads(f"p = {{ {text.strip()} }}")["p"]
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(
            f"{what[0].upper()}{what[1:]} must read as TOML 'key = value' pairs separated by "
            f"commas, e.g. widths = [5, 10]: {err}."
        ) from None
    return parsed
