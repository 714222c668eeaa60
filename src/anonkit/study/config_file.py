"""The TOML file of a study: its keys, checked, turned into :class:`StudyConfig` settings.

The format is documented in :mod:`anonkit.study.config`; ``[attributes]`` and
``[hierarchies]`` are read as in ``anonkit anonymize`` configurations
(:func:`anonkit.config.parse_config`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from anonkit.config import parse_config
from anonkit.exceptions import ConfigError, ParameterError, UnknownNameError
from anonkit.io.toml import check_keys

__all__ = ["toml_error", "toml_settings"]

_TOP: dict[str, str] = {
    "dataset": "dataset",
    "target": "target",
    "k": "k_values",
    "suppression_limit": "suppression_limit",
    "classifiers": "classifiers",
    "folds": "folds",
    "repeats": "repeats",
    "suppression_limits": "suppression_limits",
    "tuning": "tuning",
    "test_size": "test_size",
    "seed": "seed",
    "workers": "workers",
    "output": "output",
    "cache": "cache",
    "separator": "separator",
    "sample": "sample",
    "missing": "missing",
    "algorithms": "algorithms",
}
_ATTRIBUTES = ("quasi_identifiers", "numeric", "features")
#: The TOML key of each :class:`StudyConfig` parameter (for errors that name the key).
_KEYS: dict[str, str] = {
    **{name: key for key, name in _TOP.items()},
    **{name: f"attributes.{name}" for name in _ATTRIBUTES},
    "hierarchies": "hierarchies",
}


def toml_settings(
    data: Mapping[str, Any], path: Path, builtin_datasets: Sequence[str]
) -> dict[str, Any]:
    """Keyword arguments of :class:`StudyConfig` from a parsed TOML document.

    ``[attributes]`` and ``[hierarchies]`` are read by :func:`anonkit.config.parse_config`
    (the ``anonkit anonymize`` format: relative hierarchy files resolved against the
    configuration's folder, builder tables checked). A ``dataset`` not in
    ``builtin_datasets`` is a path, resolved like the other files.
    """
    where = str(path)
    check_keys(data, list(_TOP), {"attributes": _ATTRIBUTES, "hierarchies": None}, where)
    attrs = dict(data.get("attributes", {}))
    features = attrs.pop("features", ())
    hier = data.get("hierarchies", {})
    settings: dict[str, Any] = {}
    if attrs or hier:
        # the run-configuration parser reads [attributes] and [hierarchies] alike; it
        # wants an input and a privacy target, which a study does not use
        attrs_in = dict(attrs)
        if "quasi_identifiers" not in attrs_in:
            attrs_in["quasi_identifiers"] = [c for c in hier if c != data.get("target")] or ["_"]
        parsed = parse_config(
            {"input": "_", "attributes": attrs_in, "hierarchies": hier, "privacy": {"k": 1}},
            path=path,
        )
        if "quasi_identifiers" in attrs:
            settings["quasi_identifiers"] = parsed.quasi_identifiers
        if "numeric" in attrs:
            settings["numeric"] = parsed.numeric
        settings["hierarchies"] = dict(parsed.hierarchies)
    if features:
        settings["features"] = _toml_names(features, "attributes.features", where)
    base = path.parent
    for key, name in _TOP.items():
        if key not in data:
            continue
        value = data[key]
        if key in ("output", "cache") or (key == "dataset" and value not in builtin_datasets):
            if not isinstance(value, str):
                raise ConfigError(f"The key '{key}' in {where} must be a string, not {value!r}.")
            p = Path(value).expanduser()
            value = str(p if p.is_absolute() else base / p)
        elif key == "algorithms":
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                raise ConfigError(
                    f"The key 'algorithms' in {where} must be a list of tables such as "
                    '{ algorithm = "flash", metric = "loss" }.'
                )
        elif key in ("classifiers", "missing"):
            value = _toml_names(value, key, where)
        elif key == "suppression_limits" and isinstance(value, list):
            value = tuple(value)
        settings[name] = value
    if "output" not in settings:
        settings["output"] = base / path.stem
    return settings


def _toml_names(value: object, key: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"The key '{key}' in {where} must be a list of strings, not {value!r}.")
    return tuple(value)


def toml_error(err: ParameterError | UnknownNameError, path: Path, owner: str) -> Exception:
    """``err``, raised by :class:`StudyConfig` (``owner``) or an algorithm spec on the
    settings of the TOML file ``path``, told in the file's words: a
    :class:`ConfigError` naming the key and the file ("The key 'k' in study.toml must be
    an int >= 1, not 0."; ``err`` is its cause), or the unknown name with where it was
    given. ``err`` itself when it does not come from a key of the file.

    Examples
    --------
    >>> err = ParameterError("k_values", "StudyConfig", "an int >= 1", 0)
    >>> print(toml_error(err, Path("study.toml"), "StudyConfig"))
    The key 'k' in study.toml must be an int >= 1, not 0.
    """
    where = str(path)
    if isinstance(err, UnknownNameError):
        kind, _, algorithm = err.kind.partition(" of ")
        key = {"classifier": "classifiers", "algorithm": "algorithms.algorithm"}.get(kind)
        if algorithm:  # "metric of flash": a key of an [[algorithms]] table
            key = f"algorithms.{kind}"
        if key is None or err.where:
            return err
        return UnknownNameError(
            err.kind, err.name, err.available, f" in the key '{key}' of {where}"
        )
    if err.owner == owner:
        key = _KEYS.get(err.parameter)
    elif err.owner.endswith("algorithm spec"):
        key = f"algorithms.{err.parameter}"
    else:
        key = None
    if key is None:
        return err
    return ConfigError(
        f"The key '{key}' in {where} must be {err.expected}, not {err.got!r}.{err.hint}"
    )
