"""TOML run configurations for ``anonkit anonymize``.

A configuration names the input table, the role of its columns, the hierarchies, the
privacy requirement and the search; :func:`load_config` turns it into an immutable
:class:`AnonymizeConfig` and :func:`run_config` runs it. Relative paths (``input``,
``output``, hierarchy files) are relative to the folder holding the configuration file.

Format
------
.. code-block:: toml

    input = "adult.csv"            # CSV (separator detected) or Parquet; required
    output = "release.csv"         # optional (.csv, .tsv, .parquet); -o overrides it

    [read]                         # how to read CSV input (all optional; with Parquet
                                   # input, missing, strip and decimal_comma are refused)
    separator = ","                # sniffed when absent (the guess is reported)
    encoding = "utf-8"             # e.g. "latin-1"; hierarchy files are read with it too
    missing = ["?", ""]            # cells read as missing values
    strip = true                   # trim spaces around values and column names
    decimal_comma = false          # true: read 49,4 as the number 49.4

    [attributes]                   # every column needs a role, or 'others' says what to do
    quasi_identifiers = ["age", "sex"]   # optional if [hierarchies] lists them
    identifying = ["name"]               # removed from the release
    sensitive = ["disease"]              # kept as they are; models protect them
    insensitive = ["weight"]             # kept as they are
    others = "error"                     # columns with no role: "error", "drop" or "keep"
    numeric = ["age"]                    # quasi-identifiers read as numbers (mondrian,
                                         # microaggregation, hilbert, banga, k_optimize)

    [hierarchies]
    age = "hierarchies/age.csv"                  # a hierarchy file
    sex = { type = "file", path = "sex.csv", encoding = "latin-1" }  # one read its own way
    smoker = [["yes", "*"], ["no", "*"]]         # or its rows inline, as in the CSV
    zip = { type = "masking" }                   # or a builder table (see build_hierarchy)
    salary = { type = "intervals", widths = [1000, 5000] }

    [privacy]
    k = 5                          # k-anonymity (optional when 'models' are given)
    suppression_limit = 0.04       # share of records that may be suppressed, default 0
    population = "population.csv"  # for k_map and delta_presence
    models = [                     # more privacy models, by registry name
      { name = "distinct_l_diversity", attribute = "disease", l = 3 },
      { name = "equal_t_closeness", attribute = "disease", t = 0.2 },
    ]

    [search]
    algorithm = "auto"             # auto (flash, or lightning on wide tables), flash,
                                   # sparse_flash, exhaustive, samarati, datafly,
                                   # incognito, allmin, lightning, genetic, topdown,
                                   # mondrian, greedy_merge,
                                   # microaggregation, hilbert, banga, k_optimize,
                                   # safepub, k_epsilon
    metric = "loss"                # see anonkit.metrics.generalization.METRICS
    engine = "polars"              # in memory; "streaming" (larger than memory), "spark",
                                   # "auto" (streams files above memory_share of RAM)
    memory_share = 0.25            # engine "auto": stream above this share of memory
    time_limit = 10                # lightning, genetic, topdown, auto: seconds (also
                                   # max_nodes, seed)
    metric_options = { aggregate = "geometric", weights = { age = 2.0 } }
                                   # loss: arithmetic (default) or geometric (ARX) mean
    mode = "strict"                # mondrian: strict or relaxed
    split = "widest"               # mondrian: widest, distinct or round_robin
    numeric_release = "range"      # mondrian, numeric columns: range or mean
    cost = "ncp"                   # greedy_merge: distortion, ncp, total, llm, nllm, ...
    method = "mdav"                # microaggregation: univariate, mdav, gmm
    aggregate = "mean"             # microaggregation: mean, median or mode

    [search.options]               # hilbert, banga, k_optimize, safepub, k_epsilon: the
    epsilon = 1.0                  # estimator's own parameters (see anonkit.estimators)

    [release]
    suppressed = "mask"            # "mask" (rows of '*') or "drop"
    local_suppression = false      # blank single cells instead of whole records
    csv_formulas = "escape"        # prefix cells starting with = + - @ with ' ("keep": raw)
    leak_check = true              # stop on kept columns that give quasi-identifiers away

Model names and parameters are those of :mod:`anonkit.models.registry` (the same classes
the Python API takes in ``privacy=[...]``); ``[[privacy.models]]`` tables work as well.

Without ``quasi_identifiers`` the quasi-identifiers are the keys of ``[hierarchies]`` in
their order. A quasi-identifier without a hierarchy can only be kept or suppressed. A
top-level ``separator`` is read as ``[read] separator`` (older files).

Errors
------
Unknown keys or sections, values of the wrong type and TOML syntax errors raise
:class:`~anonkit.exceptions.ConfigError` (one sentence naming the key and the file); a
missing configuration file raises :class:`~anonkit.exceptions.InputFileError`.
"""

from __future__ import annotations

import codecs
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anonkit._formats import table_format
from anonkit._frozen import FrozenDict
from anonkit._validation import Boolean, Constraint, Interval, Options, check
from anonkit.api import ALGORITHMS, ESTIMATOR_ALGORITHMS, anonymize
from anonkit.core.resolve import config_hierarchy
from anonkit.engines.base import choose_engine, get_engine
from anonkit.engines.spark_csv import TEXT_SUFFIXES
from anonkit.estimators import FullDomain, GreedyMerge, Microaggregation, Mondrian
from anonkit.estimators.given import check_metric
from anonkit.exceptions import (
    AnonkitError,
    ConfigError,
    ParameterError,
    UnknownNameError,
)
from anonkit.io.cells import READ_OPTIONS, read_options
from anonkit.io.stamps import file_stamp, note_source
from anonkit.io.tables import read_settings, read_table, scan_table
from anonkit.io.toml import check_keys, read_toml, type_name
from anonkit.io.write import output_format
from anonkit.metrics.levels import model_attributes
from anonkit.metrics.tables import covering_hierarchy
from anonkit.models.registry import model_from_config

if TYPE_CHECKING:
    import polars as pl

    from anonkit.core.hierarchy import Hierarchy
    from anonkit.estimators.base import Estimator
    from anonkit.models.base import PrivacyModel
    from anonkit.progress import Progress
    from anonkit.result import AnonymizationResult

__all__ = [
    "AnonymizeConfig",
    "chosen_engine",
    "load_config",
    "prepare_inputs",
    "resolve_hierarchies",
    "run_config",
]

_TOP_KEYS = ("input", "output", "separator")
#: Values of [attributes] others and [release] csv_formulas.
OTHERS = ("error", "drop", "keep")
CSV_FORMULAS = ("escape", "keep")
#: Algorithm options of [search], passed to :func:`anonkit.anonymize` as they are (each
#: checked first as the estimator that reads it checks it: :func:`_search_options`).
_SEARCH_OPTIONS = ("mode", "split", "numeric_release", "cost", "method", "aggregate",
                   "memory_share", "time_limit", "max_nodes", "seed", "options",
                   "metric_options")  # fmt: skip
SECTIONS: dict[str, tuple[str, ...] | None] = {  # the keys each section may hold
    "read": READ_OPTIONS,
    "attributes": (
        "quasi_identifiers",
        "identifying",
        "sensitive",
        "insensitive",
        "numeric",
        "others",
    ),
    "hierarchies": None,  # any column name
    "privacy": ("k", "suppression_limit", "models", "population"),
    "search": ("algorithm", "metric", "engine", *_SEARCH_OPTIONS),
    "release": ("suppressed", "local_suppression", "csv_formulas", "leak_check"),
}

HierarchyEntry = Path | Mapping[str, Any] | tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class AnonymizeConfig:
    """A validated run configuration (see the module docstring for the TOML format)."""

    path: Path | None
    input: Path
    quasi_identifiers: tuple[str, ...]
    k: int | None
    output: Path | None = None
    separator: str | None = None
    encoding: str = "utf-8"
    missing: tuple[str, ...] = ("",)
    strip: bool = False
    decimal_comma: bool = False
    identifying: tuple[str, ...] = ()
    sensitive: tuple[str, ...] = ()
    insensitive: tuple[str, ...] = ()
    others: str = "error"
    leak_check: bool = True
    csv_formulas: str = "escape"
    hierarchies: Mapping[str, HierarchyEntry] = field(default_factory=lambda: FrozenDict({}))
    suppression_limit: float = 0.0
    algorithm: str = "auto"
    metric: str = "loss"
    engine: str = "polars"
    suppressed: str = "mask"
    numeric: tuple[str, ...] = ()
    privacy: tuple[PrivacyModel, ...] = ()
    population: Path | None = None
    local_suppression: bool = False
    options: Mapping[str, Any] = field(default_factory=lambda: FrozenDict({}))

    def anonymize_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`anonkit.anonymize` (without frame, population and
        progress)."""
        return {
            "quasi_identifiers": list(self.quasi_identifiers),
            "hierarchies": dict(self.hierarchies),
            "k": self.k,
            "privacy": list(self.privacy),
            "suppression_limit": self.suppression_limit,
            "algorithm": self.algorithm,
            "metric": self.metric,
            "identifying": list(self.identifying),
            "sensitive": list(self.sensitive),
            "insensitive": list(self.insensitive),
            "others": self.others,
            "leak_check": self.leak_check,
            "numeric": list(self.numeric),
            "suppressed": self.suppressed,
            "engine": self.engine,
            "local_suppression": self.local_suppression,
            **dict(self.options),
        }

    def summary(self) -> dict[str, Any]:
        """Plain description of the settings (for reports); no data."""
        return {
            "input": str(self.input),
            "quasi_identifiers": list(self.quasi_identifiers),
            "identifying": list(self.identifying),
            "sensitive": list(self.sensitive),
            "insensitive": list(self.insensitive),
            "others": self.others,
            "k": self.k,
            "privacy": [m.describe() for m in self.privacy],
            "suppression_limit": self.suppression_limit,
            "algorithm": self.algorithm,
            "metric": self.metric,
            **dict(self.options),
            "suppressed": self.suppressed,
            "local_suppression": self.local_suppression,
            "leak_check": self.leak_check,
            "csv_formulas": self.csv_formulas,
        }

    def read_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`anonkit.io.tables.read_table` for the input."""
        return read_options(self)


# ----------------------------------------------------------------------------- parsing
def _wrong(key: str, expected: str, value: object, where: str) -> ConfigError:
    return ConfigError(
        f"The key '{key}' in {where} must be {expected}, not {type_name(value)} ({value!r})."
    )


def _checked(value: Any, constraint: Constraint, key: str, where: str) -> Any:
    """``value`` if it satisfies ``constraint`` (the check :func:`anonkit.anonymize` makes),
    else a :class:`ConfigError` naming the TOML key and the file."""
    try:
        return check(value, constraint, key, where)
    except ParameterError as err:
        # TOML has no None: an option that may be None is left out instead
        expected = "true or false" if isinstance(constraint, Boolean) else err.expected
        expected = expected.removeprefix("None or ")
        wrong = _wrong(key, expected, value, where)
        raise ConfigError(f"{wrong}{err.hint}") from None


def _string(value: object, key: str, where: str) -> str:
    if not isinstance(value, str):
        raise _wrong(key, "a string", value, where)
    return value


def _string_list(value: object, key: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str) and "," in value:  # names in one string, as on the CLI
        names = ", ".join(f'"{n.strip()}"' for n in value.split(","))
        raise ConfigError(
            f"The key '{key}' in {where} is one string, {value!r}; list the names: "
            f"[{names}] (a name holding a comma goes alone in a list)."
        )
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _wrong(key, "a list of strings", value, where)
    return tuple(value)


def _path(base: Path, value: object, key: str, where: str) -> Path:
    """The file ``value`` names (``""`` names none), relative to ``base``."""
    if not _string(value, key, where).strip():
        raise _wrong(key, "the path of a file", value, where)
    p = Path(str(value)).expanduser()
    return p if p.is_absolute() else base / p


#: The estimator that reads the [search] options of each algorithm (the others: FullDomain).
_READERS: dict[str, type[Estimator]] = {
    "mondrian": Mondrian,
    "greedy_merge": GreedyMerge,
    "microaggregation": Microaggregation,
}
_MEMORY_SHARE = FullDomain._parameter_constraints["memory_share"]


def _search_options(search: Mapping[str, Any], algorithm: str, where: str) -> dict[str, Any]:
    """The algorithm options of [search], each checked as the estimator that reads it
    checks it (:func:`anonkit.anonymize` would, after reading the table, naming the
    estimator), named by its key and the file."""
    options = {key: search[key] for key in _SEARCH_OPTIONS if key in search}
    reader = _READERS.get(algorithm, FullDomain)
    checks = {} if algorithm in ESTIMATOR_ALGORITHMS else reader._parameter_constraints
    for key, constraint in {**checks, "memory_share": _MEMORY_SHARE}.items():
        if key in options:
            _checked(options[key], constraint, f"search.{key}", where)
    return options


def parse_config(data: Mapping[str, Any], *, path: Path | None = None) -> AnonymizeConfig:
    """Validate a parsed TOML document; relative paths are resolved against ``path``'s folder."""
    where = str(path) if path is not None else "the configuration"
    base = path.parent if path is not None else Path.cwd()

    check_keys(data, _TOP_KEYS, SECTIONS, where)

    if "input" not in data:
        raise ConfigError(f"The key 'input' is missing in {where}; name the table to anonymize.")
    input_path = _path(base, data["input"], "input", where)
    output = data.get("output")
    output_path = _path(base, output, "output", where) if output is not None else None
    read = dict(data.get("read", {}))
    if "separator" in data and "separator" in read:
        raise ConfigError(
            f"{where} sets 'separator' twice, at the top and in [read]; keep the one in [read]."
        )
    if "separator" in data:
        read["separator"] = data["separator"]
    if "missing" in read:  # one token, or a list of them ("?,NA" is told to be listed)
        read["missing"] = _string_list(read["missing"], "read.missing", where)
    settings = read_settings(read, input_path, where)

    attrs = data.get("attributes", {})
    hier_raw = data.get("hierarchies", {})
    privacy = data.get("privacy", {})
    search = data.get("search", {})
    release = data.get("release", {})

    hierarchies: dict[str, HierarchyEntry] = {
        column: config_hierarchy(column, spec, base, settings["encoding"], where)
        for column, spec in hier_raw.items()
    }

    if "quasi_identifiers" in attrs:
        qi = _string_list(attrs["quasi_identifiers"], "attributes.quasi_identifiers", where)
    else:  # the hierarchies' columns, less sensitive ones (hierarchical t-closeness)
        declared = set(attrs.get("sensitive", []) if isinstance(attrs, dict) else [])
        qi = tuple(c for c in hierarchies if c not in declared)
    if not qi:
        raise ConfigError(
            f"No quasi-identifiers in {where}; list them in [attributes] quasi_identifiers "
            "or give them hierarchies in [hierarchies]."
        )
    identifying = _string_list(attrs.get("identifying", []), "attributes.identifying", where)
    sensitive = _string_list(attrs.get("sensitive", []), "attributes.sensitive", where)
    insensitive = _string_list(attrs.get("insensitive", []), "attributes.insensitive", where)
    others = _choice(attrs, "others", "error", OTHERS, "attributes", where)

    models = _models(privacy.get("models", []), base, where)
    for model in models:  # hierarchical t-closeness measures in the attribute's hierarchy
        lacking = [a for a in model.sensitive_attributes if a not in hierarchies]
        if lacking and getattr(model, "distance_kind", "") == "hierarchical":
            if getattr(model, "hierarchy", None) is None:
                raise ConfigError(
                    f"{type(model).__name__} on {lacking[0]!r} measures distances in its "
                    f"hierarchy, and {where} gives none: add [hierarchies] {lacking[0]} = "
                    '"<file>" (or its rows, or a builder table).'
                )
    # SafePub derives its k from epsilon and delta ([search] options), and takes no model
    derives_k = isinstance(search, dict) and search.get("algorithm") == "safepub"
    if "k" not in privacy and not models and not derives_k:
        raise ConfigError(
            f"The key 'k' is missing in section [privacy] of {where}; give k or 'models'."
        )
    unused = [c for c in hierarchies if c not in {*qi, *sensitive, *model_attributes(models)}]
    if unused:
        # with others = "keep" such a column was published as it is, its hierarchy unused
        shown = ", ".join(repr(c) for c in unused)
        raise ConfigError(
            f"[hierarchies] in {where} gives {shown} a hierarchy, but no quasi-identifier "
            "or sensitive attribute is so named: add them to quasi_identifiers in "
            "[attributes] to generalize them, or remove their hierarchies."
        )
    k = privacy.get("k")
    if k is not None:
        _checked(k, Interval(int, 1), "privacy.k", where)
    population = privacy.get("population")
    pop_path = _path(base, population, "privacy.population", where) if population else None
    limit = _checked(
        privacy.get("suppression_limit", 0.0),
        Interval(float, 0, 1, noun="a share"),
        "privacy.suppression_limit",
        where,
    )

    algorithm = _string(search.get("algorithm", "auto"), "search.algorithm", where)
    metric = _string(search.get("metric", "loss"), "search.metric", where)
    engine = _string(search.get("engine", "polars"), "search.engine", where)

    if algorithm not in ALGORITHMS:
        raise UnknownNameError("algorithm", algorithm, list(ALGORITHMS))
    check_metric(algorithm, metric)
    options = _search_options(search, algorithm, where)
    if "options" in options and not isinstance(options["options"], dict):
        raise _wrong("options", "a table of the algorithm's parameters", options["options"], where)
    local = _checked(
        release.get("local_suppression", False), Boolean(), "release.local_suppression", where
    )
    numeric = _string_list(attrs.get("numeric", []), "attributes.numeric", where)
    suppressed = _choice(release, "suppressed", "mask", ("mask", "drop"), "release", where)
    csv_formulas = _choice(release, "csv_formulas", "escape", CSV_FORMULAS, "release", where)
    leak_check = _checked(release.get("leak_check", True), Boolean(), "release.leak_check", where)

    return AnonymizeConfig(
        path=path,
        input=input_path,
        output=output_path,
        **settings,
        quasi_identifiers=qi,
        identifying=identifying,
        sensitive=sensitive,
        insensitive=insensitive,
        others=others,
        leak_check=leak_check,
        csv_formulas=csv_formulas,
        hierarchies=FrozenDict(hierarchies),
        k=k,
        suppression_limit=float(limit),
        algorithm=algorithm,
        metric=metric,
        engine=engine,
        suppressed=suppressed,
        numeric=numeric,
        privacy=models,
        population=pop_path,
        local_suppression=local,
        options=FrozenDict(options),
    )


def _choice(
    table: Mapping[str, Any],
    key: str,
    default: str,
    choices: tuple[str, ...],
    section: str,
    where: str,
) -> str:
    """``table[key]`` (or ``default``), which must be one of ``choices``."""
    value = _string(table.get(key, default), f"{section}.{key}", where)
    return str(_checked(value, Options(choices), f"{section}.{key}", where))


def _models(value: object, base: Path, where: str) -> tuple[PrivacyModel, ...]:
    """The [privacy] ``models`` list: tables with a ``name`` and the model's parameters (a
    ``hierarchy`` path read from ``base``, the configuration's folder)."""

    if not isinstance(value, list):
        raise _wrong("privacy.models", "a list of tables", value, where)
    out = []
    for i, entry in enumerate(value):
        if not isinstance(entry, dict) or "name" not in entry:
            raise _wrong(f"privacy.models[{i}]", "a table with a 'name' key", entry, where)
        params = {key: val for key, val in entry.items() if key != "name"}
        if isinstance(params.get("hierarchy"), str):
            params["hierarchy"] = str(_path(base, params["hierarchy"], "hierarchy", where))
        try:
            out.append(model_from_config(str(entry["name"]), params))
        except AnonkitError as err:
            raise ConfigError(f"In privacy.models[{i}] of {where}: {err}") from None
    return tuple(out)


def load_config(path: str | Path) -> AnonymizeConfig:
    """Read and validate a TOML configuration file.

    Raises
    ------
    InputFileError
        If the file does not exist or cannot be read.
    ConfigError
        If it is not valid TOML or not a valid configuration.
    """
    return parse_config(read_toml(path), path=Path(path).resolve())


# ----------------------------------------------------------------------------- running
def resolve_hierarchies(
    config: AnonymizeConfig, frame: pl.DataFrame, population: pl.DataFrame | None = None
) -> dict[str, Hierarchy]:
    """The hierarchy of every quasi-identifier of ``config`` that ``frame`` holds; a
    built one covers the population's values too, as in :func:`anonkit.anonymize`.

    Quasi-identifiers missing from the table are left out (:func:`anonkit.anonymize`
    then reports them).
    """
    out = {}
    for c in config.quasi_identifiers:
        if c not in frame.columns:
            continue
        pop = population if population is not None and c in population.columns else None
        out[c] = covering_hierarchy(c, config.hierarchies.get(c), frame[c], pop)
    return out


def prepare_inputs(config: AnonymizeConfig) -> tuple[pl.DataFrame, dict[str, Hierarchy]]:
    """Read the input table (and the population table, if any) and resolve the
    hierarchies (:func:`resolve_hierarchies`)."""
    frame = read_table(config.input, **config.read_kwargs())
    population = None
    if config.population is not None:
        population = read_table(config.population, **config.read_kwargs())
    return frame, resolve_hierarchies(config, frame, population)


def chosen_engine(config: AnonymizeConfig) -> tuple[str, str]:
    """The engine a run of ``config`` uses, and why (``engine = "auto"`` looks at the
    input file's size)."""
    if config.engine != "auto":
        # the command's --engine replaces the configuration's before this is asked
        return config.engine, "set by [search] engine or --engine"
    where = str(config.path or "the configuration")
    share = _checked(
        config.options.get("memory_share", 0.25), _MEMORY_SHARE, "search.memory_share", where
    )
    name, reason = choose_engine(config.input, share)
    text = table_format(Path(config.input)) != "parquet"
    if name == "streaming" and text and codecs.lookup(config.encoding).name != "utf-8":
        return "polars", (
            f"the streaming engine reads UTF-8 only, and the file is {config.encoding} "
            f"({reason}: convert it to UTF-8 or Parquet to stream it)"
        )
    return name, reason


def run_config(
    config: AnonymizeConfig,
    *,
    progress: Progress | None = None,
    inputs: tuple[pl.DataFrame, Mapping[str, Any]] | None = None,
    output: Path | None = None,
    population: pl.DataFrame | None = None,
) -> AnonymizationResult:
    """Read the input (unless ``inputs`` from :func:`prepare_inputs` is given) and anonymize.

    ``population``: the configuration's population table, already read (for
    :func:`resolve_hierarchies` of ``inputs``); read here when not given.

    When the engine does not hold the records in memory (``streaming``, ``spark``, or
    ``auto`` choosing one of them), the input is not read but scanned, and the release is
    written to ``output`` by the engine (required then), a CSV file with the ``[read]``
    separator as the command writes one in memory; the result's ``release`` reads it.
    """
    kwargs = config.anonymize_kwargs()
    if population is None and config.population is not None:
        population = read_table(config.population, **config.read_kwargs())
    name, reason = chosen_engine(config)
    if inputs is None and not get_engine(name).in_memory:
        if output is None:
            raise ConfigError(f"The {name} engine writes the release itself: give an output file.")
        source: Any = config.input
        if name == "streaming":
            # the file as it was before scan_table's checks read it, so that a change
            # from then on names it (InputChangedError)
            stamp = file_stamp(config.input)
            source = scan_table(config.input, **config.read_kwargs())
            source = note_source(source, config.input, stamp)
        elif name == "spark" and str(config.input).lower().endswith(TEXT_SUFFIXES):
            spark: Any = get_engine("spark")  # Spark reads the text as [read] says
            source = spark.read_text(config.input, **config.read_kwargs())
        kwargs["engine"] = name
        # a CSV release takes the [read] separator, as the command writes one in memory
        if output_format(output) == "csv":
            kwargs["output_separator"] = config.separator
        result = anonymize(
            source, progress=progress, population=population, output=output, **kwargs
        )
        details = {**result.details, "engine": {"name": name, "reason": reason}}
        return dataclasses.replace(result, details=FrozenDict(details))
    frame, hierarchies = inputs if inputs is not None else prepare_inputs(config)
    # a quasi-identifier without a hierarchy stays without one, so that the result says
    # when such a column is suppressed in every record
    given = {c: h for c, h in hierarchies.items() if config.hierarchies.get(c) is not None}
    kwargs["hierarchies"] = {**kwargs["hierarchies"], **given}
    if kwargs["engine"] == "auto":
        kwargs["engine"] = "polars"  # the table is in memory now
    return anonymize(frame, progress=progress, population=population, **kwargs)
