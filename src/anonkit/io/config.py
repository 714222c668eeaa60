"""TOML run configurations for ``anonkit anonymize``.

A configuration names the input table, the role of its columns, the hierarchies, the
privacy requirement and the search; :func:`load_config` turns it into an immutable
:class:`AnonymizeConfig` and :func:`run_config` runs it. Relative paths (``input``,
``output``, hierarchy files) are relative to the folder holding the configuration file.

Format
------
.. code-block:: toml

    input = "adult.csv"            # CSV (separator detected) or Parquet; required
    output = "release.csv"         # optional; the CLI's -o overrides it
    separator = ";"                # optional CSV separator (input and output)

    [attributes]
    quasi_identifiers = ["age", "sex"]   # optional if [hierarchies] lists them
    identifying = ["name"]               # removed from the release
    sensitive = ["disease"]              # kept as they are

    [hierarchies]
    age = "hierarchies/age.csv"                  # a hierarchy file
    zip = { type = "masking" }                   # or a builder table (see build_hierarchy)
    salary = { type = "intervals", widths = [1000, 5000] }

    [privacy]
    k = 5                          # required
    suppression_limit = 0.04       # share of records that may be suppressed, default 0

    [search]
    algorithm = "flash"            # flash, exhaustive, samarati, datafly, incognito
    metric = "loss"                # see anonkit.metrics.generalization.METRICS
    engine = "polars"              # or "numpy"

    [release]
    suppressed = "mask"            # "mask" (rows of '*') or "drop"

Without ``quasi_identifiers`` the quasi-identifiers are the keys of ``[hierarchies]`` in
their order. A quasi-identifier without a hierarchy can only be kept or suppressed.

Errors
------
Unknown keys or sections, values of the wrong type and TOML syntax errors raise
:class:`~anonkit.exceptions.ConfigError` (one sentence naming the key and the file); a
missing configuration file raises :class:`~anonkit.exceptions.InputFileError`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from anonkit.exceptions import ConfigError, InputFileError, UnknownNameError

if TYPE_CHECKING:
    import polars as pl

    from anonkit.api import Progress
    from anonkit.core.hierarchy import Hierarchy
    from anonkit.result import AnonymizationResult

__all__ = ["AnonymizeConfig", "load_config", "prepare_inputs", "run_config"]

_TOP_KEYS = ("input", "output", "separator")
_SECTIONS: dict[str, tuple[str, ...]] = {
    "attributes": ("quasi_identifiers", "identifying", "sensitive"),
    "hierarchies": (),  # any column name
    "privacy": ("k", "suppression_limit"),
    "search": ("algorithm", "metric", "engine"),
    "release": ("suppressed",),
}

HierarchyEntry = Path | Mapping[str, Any]


@dataclass(frozen=True)
class AnonymizeConfig:
    """A validated run configuration (see the module docstring for the TOML format)."""

    path: Path | None
    input: Path
    quasi_identifiers: tuple[str, ...]
    k: int
    output: Path | None = None
    separator: str | None = None
    identifying: tuple[str, ...] = ()
    sensitive: tuple[str, ...] = ()
    hierarchies: Mapping[str, HierarchyEntry] = field(
        default_factory=lambda: MappingProxyType({})
    )
    suppression_limit: float = 0.0
    algorithm: str = "flash"
    metric: str = "loss"
    engine: str = "polars"
    suppressed: str = "mask"

    def anonymize_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`anonkit.anonymize` (without frame and progress)."""
        return {
            "quasi_identifiers": list(self.quasi_identifiers),
            "hierarchies": dict(self.hierarchies),
            "k": self.k,
            "suppression_limit": self.suppression_limit,
            "algorithm": self.algorithm,
            "metric": self.metric,
            "identifying": list(self.identifying),
            "sensitive": list(self.sensitive),
            "suppressed": self.suppressed,
            "engine": self.engine,
        }

    def summary(self) -> dict[str, Any]:
        """Plain description of the settings (for reports); no data."""
        return {
            "input": str(self.input),
            "quasi_identifiers": list(self.quasi_identifiers),
            "identifying": list(self.identifying),
            "sensitive": list(self.sensitive),
            "k": self.k,
            "suppression_limit": self.suppression_limit,
            "algorithm": self.algorithm,
            "metric": self.metric,
            "suppressed": self.suppressed,
        }


# ----------------------------------------------------------------------------- parsing
def _type_name(value: object) -> str:
    return {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


def _wrong(key: str, expected: str, value: object, where: str) -> ConfigError:
    return ConfigError(
        f"The key '{key}' in {where} must be {expected}, not {_type_name(value)} ({value!r})."
    )


def _string(value: object, key: str, where: str) -> str:
    if not isinstance(value, str):
        raise _wrong(key, "a string", value, where)
    return value


def _string_list(value: object, key: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _wrong(key, "a list of strings", value, where)
    return tuple(value)


def _resolve(base: Path, value: str) -> Path:
    p = Path(value).expanduser()
    return p if p.is_absolute() else base / p


def parse_config(data: Mapping[str, Any], *, path: Path | None = None) -> AnonymizeConfig:
    """Validate a parsed TOML document; relative paths are resolved against ``path``'s folder."""
    where = str(path) if path is not None else "the configuration"
    base = path.parent if path is not None else Path.cwd()

    for key, value in data.items():
        if key in _SECTIONS:
            if not isinstance(value, dict):
                raise _wrong(key, "a table (section)", value, where)
            allowed = _SECTIONS[key]
            if allowed:
                for sub in value:
                    if sub not in allowed:
                        raise ConfigError(
                            f"Unknown key '{sub}' in section [{key}] of {where}; "
                            f"expected one of: {', '.join(allowed)}."
                        )
        elif key not in _TOP_KEYS:
            known = ", ".join([*_TOP_KEYS, *(f"[{s}]" for s in _SECTIONS)])
            raise ConfigError(f"Unknown key '{key}' in {where}; expected one of: {known}.")

    if "input" not in data:
        raise ConfigError(f"The key 'input' is missing in {where}; name the table to anonymize.")
    input_path = _resolve(base, _string(data["input"], "input", where))
    output = data.get("output")
    output_path = _resolve(base, _string(output, "output", where)) if output is not None else None
    separator = data.get("separator")
    if separator is not None:
        separator = _string(separator, "separator", where)
        if len(separator) != 1:
            raise ConfigError(
                f"The key 'separator' in {where} must be a single character, not {separator!r}."
            )

    attrs = data.get("attributes", {})
    hier_raw = data.get("hierarchies", {})
    privacy = data.get("privacy", {})
    search = data.get("search", {})
    release = data.get("release", {})

    hierarchies: dict[str, HierarchyEntry] = {}
    for column, spec in hier_raw.items():
        if isinstance(spec, str):
            hierarchies[column] = _resolve(base, spec)
        elif isinstance(spec, dict):
            if "type" not in spec:
                raise ConfigError(
                    f"The hierarchy table for '{column}' in {where} needs a 'type' key "
                    "(intervals, masking, dates, ordered or suppression)."
                )
            hierarchies[column] = MappingProxyType(dict(spec))
        else:
            raise _wrong(
                f"hierarchies.{column}", "a file path or a builder table", spec, where
            )

    if "quasi_identifiers" in attrs:
        qi = _string_list(attrs["quasi_identifiers"], "attributes.quasi_identifiers", where)
    else:
        qi = tuple(hierarchies)
    if not qi:
        raise ConfigError(
            f"No quasi-identifiers in {where}; list them in [attributes] quasi_identifiers "
            "or give them hierarchies in [hierarchies]."
        )
    identifying = _string_list(attrs.get("identifying", []), "attributes.identifying", where)
    sensitive = _string_list(attrs.get("sensitive", []), "attributes.sensitive", where)

    if "k" not in privacy:
        raise ConfigError(f"The key 'k' is missing in section [privacy] of {where}.")
    k = privacy["k"]
    if isinstance(k, bool) or not isinstance(k, int):
        raise _wrong("privacy.k", "an integer", k, where)
    if k < 1:
        raise ConfigError(f"The key 'privacy.k' in {where} must be at least 1, not {k}.")
    limit = privacy.get("suppression_limit", 0.0)
    if isinstance(limit, bool) or not isinstance(limit, (int, float)):
        raise _wrong("privacy.suppression_limit", "a number between 0 and 1", limit, where)
    if not 0 <= limit <= 1:
        raise ConfigError(
            f"The key 'privacy.suppression_limit' in {where} must be between 0 and 1, "
            f"not {limit}."
        )

    algorithm = _string(search.get("algorithm", "flash"), "search.algorithm", where)
    metric = _string(search.get("metric", "loss"), "search.metric", where)
    engine = _string(search.get("engine", "polars"), "search.engine", where)
    from anonkit.algorithms.lattice import LATTICE_ALGORITHMS
    from anonkit.metrics.generalization import METRICS

    if algorithm not in LATTICE_ALGORITHMS:
        raise UnknownNameError("algorithm", algorithm, list(LATTICE_ALGORITHMS))
    if metric not in METRICS:
        raise UnknownNameError("metric", metric, list(METRICS))
    suppressed = _string(release.get("suppressed", "mask"), "release.suppressed", where)
    if suppressed not in ("mask", "drop"):
        raise ConfigError(
            f"The key 'release.suppressed' in {where} must be \"mask\" or \"drop\", "
            f"not {suppressed!r}."
        )

    return AnonymizeConfig(
        path=path,
        input=input_path,
        output=output_path,
        separator=separator,
        quasi_identifiers=qi,
        identifying=identifying,
        sensitive=sensitive,
        hierarchies=MappingProxyType(hierarchies),
        k=k,
        suppression_limit=float(limit),
        algorithm=algorithm,
        metric=metric,
        engine=engine,
        suppressed=suppressed,
    )


def load_config(path: str | Path) -> AnonymizeConfig:
    """Read and validate a TOML configuration file.

    Raises
    ------
    InputFileError
        If the file does not exist or cannot be read.
    ConfigError
        If it is not valid TOML or not a valid configuration.
    """
    p = Path(path)
    if not p.is_file():
        raise InputFileError(p, "no such file")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InputFileError(p, "not a UTF-8 text file") from None
    except OSError as exc:
        raise InputFileError(p, exc.strerror or str(exc)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p} is not valid TOML: {exc}.") from None
    return parse_config(data, path=p.resolve())


# ----------------------------------------------------------------------------- running
def prepare_inputs(config: AnonymizeConfig) -> tuple[pl.DataFrame, dict[str, Hierarchy]]:
    """Read the input table and resolve the hierarchy of every quasi-identifier present.

    Quasi-identifiers missing from the table are left out (:func:`anonkit.anonymize`
    then reports them).
    """
    from anonkit.api import resolve_hierarchy
    from anonkit.io.tables import read_table

    frame = read_table(config.input, separator=config.separator)
    hierarchies = {
        c: resolve_hierarchy(c, config.hierarchies.get(c), frame[c])
        for c in config.quasi_identifiers
        if c in frame.columns
    }
    return frame, hierarchies


def run_config(
    config: AnonymizeConfig,
    *,
    progress: Progress | None = None,
    inputs: tuple[pl.DataFrame, Mapping[str, Any]] | None = None,
) -> AnonymizationResult:
    """Read the input (unless ``inputs`` from :func:`prepare_inputs` is given) and anonymize."""
    from anonkit.api import anonymize

    frame, hierarchies = inputs if inputs is not None else prepare_inputs(config)
    kwargs = config.anonymize_kwargs()
    kwargs["hierarchies"] = {**kwargs["hierarchies"], **hierarchies}
    return anonymize(frame, progress=progress, **kwargs)
