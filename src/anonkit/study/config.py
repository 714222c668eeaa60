"""Study configuration: which data, which grid of (k, algorithm) cells, which classifiers.

A *study* anonymizes the training part of a dataset once per cell of a grid, requested k
times algorithm settings, and measures every cell twice: by the information-loss metrics
of :func:`anonkit.evaluate.evaluate` (plus the cost-matrix family of Mauger et al. 2020)
and by the accuracy of classifiers trained on the release (Gionis & Tassa's question in
seed 000: does a loss metric predict machine-learning utility?). :class:`StudyConfig`
holds the settings, validated once; :meth:`StudyConfig.from_toml` reads them from a file.

TOML format
-----------
.. code-block:: toml

    dataset = "adult"            # "adult" (bundled), "synthetic", or a CSV/Parquet path
    target = "salary-class"      # the class the classifiers predict
    k = [2, 10, 100]             # default: the 21 k of Mauger et al. (2 ... 15,000)
    suppression_limit = 0.0      # full-domain algorithms: share of records to suppress
    classifiers = ["logistic_regression", "random_forest", "hist_gradient_boosting"]
    folds = 1                    # 1: one stratified split; >= 2: stratified K-fold
    test_size = 0.2              # folds = 1 only
    seed = 0
    workers = 2                  # processes (default: the number of cores)
    output = "study-adult"       # results.csv, study.json, report.html
    cache = "study-adult/cache"  # one JSON file per finished cell (default <output>/cache)
    separator = ";"              # CSV datasets only (detected if omitted)
    sample = 5000                # use a random sample of 5,000 complete records

    [attributes]
    quasi_identifiers = ["sex", "age", "race"]   # default (Adult): all but the target
    numeric = ["age"]            # read as numbers by Mondrian and microaggregation
    features = []                # extra non-QI feature columns, used as they are

    [hierarchies]                # as in ``anonkit anonymize`` configurations
    age = "hierarchies/age.csv"
    zip = { type = "masking" }

    [[algorithms]]               # default: flash/loss, mondrian/strict, greedy merging
    algorithm = "flash"          # with the 7 costs (+ mdav when every QI is numeric)
    metric = "loss"

    [[algorithms]]
    algorithm = "greedy_merge"
    cost = "all"                 # the 7 cost functions, or one name, or a list

Relative paths (dataset, output, cache, hierarchy files) are relative to the folder of the
configuration file. ``algorithms = [{algorithm = "mondrian", mode = "strict"}, ...]`` (an
inline array, before the first section) works as well.

Each algorithm table names the algorithm and its *variant*, the setting a study compares:
the optimization ``metric`` of the full-domain searches (``flash``, ``exhaustive``,
``samarati``, ``datafly``, ``incognito``), the ``mode`` of ``mondrian`` (also ``split`` and
``numeric_release``), the ``cost`` of ``greedy_merge`` and the ``method`` of
``microaggregation`` (also ``aggregate``). A variant may be a list, or ``"all"``.

References
----------
A. Gionis, T. Tassa. k-Anonymization with minimal loss of information. ESA 2007 / TKDE 2009
(seed 000: loss metrics and the utility of anonymized data for classification).

C. Mauger, G. Le Mahec, G. Dequen. Modeling and evaluation of k-anonymization metrics.
PPAI workshop at AAAI 2020 (seed 004: the k grid and the seven cost functions).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any

from anonkit.exceptions import ConfigError, ParameterError, UnknownNameError
from anonkit.study.setup import CLASSIFIERS

__all__ = [
    "BUILTIN_DATASETS",
    "DEFAULT_CLASSIFIERS",
    "AlgorithmSpec",
    "StudyConfig",
    "default_algorithms",
]

OWNER = "StudyConfig"
#: Datasets a study knows by name (anything else is a file path).
BUILTIN_DATASETS: tuple[str, ...] = ("adult", "synthetic")
#: Classifiers of a study unless configured (names of :mod:`anonkit.study.ml`).
DEFAULT_CLASSIFIERS: tuple[str, ...] = CLASSIFIERS
#: Adult's class column, the target of Kohavi's original task.
ADULT_TARGET = "salary-class"
#: Adult's quasi-identifiers read as numbers by Mondrian and microaggregation.
ADULT_NUMERIC: tuple[str, ...] = ("age",)

_LOCAL_VARIANT = {"mondrian": "mode", "greedy_merge": "cost", "microaggregation": "method"}
_EXTRA_OPTIONS = {
    "mondrian": ("split", "numeric_release"),
    "microaggregation": ("aggregate",),
}


def _lattice_algorithms() -> tuple[str, ...]:
    from anonkit.algorithms.lattice import LATTICE_ALGORITHMS

    return tuple(LATTICE_ALGORITHMS)


def _variant_key(algorithm: str) -> str:
    return _LOCAL_VARIANT.get(algorithm, "metric")


def _variants(algorithm: str) -> tuple[str, ...]:
    """Every value the variant of ``algorithm`` may take, in their canonical order."""
    if algorithm == "mondrian":
        from anonkit.algorithms.mondrian import MODES

        return tuple(MODES)
    if algorithm == "greedy_merge":
        from anonkit.metrics.cost_matrix import COST_FUNCTIONS

        return COST_FUNCTIONS
    if algorithm == "microaggregation":
        from anonkit.algorithms.microaggregation.estimator import METHODS

        return tuple(METHODS)
    from anonkit.metrics.generalization import METRICS

    return tuple(METRICS)


def _option_values(algorithm: str, option: str) -> tuple[str, ...]:
    if option == "split":
        from anonkit.algorithms.mondrian import SPLITS

        return tuple(SPLITS)
    if option == "numeric_release":
        from anonkit.algorithms.mondrian import NUMERIC_RELEASES

        return tuple(NUMERIC_RELEASES)
    from anonkit.algorithms.microaggregation.aggregate import AGGREGATES

    return tuple(AGGREGATES)


_DEFAULT_VARIANT = {"mondrian": "strict", "greedy_merge": "nllm", "microaggregation": "mdav"}


@dataclass(frozen=True)
class AlgorithmSpec:
    """One algorithm setting of a study grid: an algorithm, its variant and options.

    Parameters
    ----------
    algorithm
        A full-domain search (``flash``, ``exhaustive``, ``samarati``, ``datafly``,
        ``incognito``) or ``mondrian``, ``greedy_merge``, ``microaggregation``.
    variant
        What the study compares for that algorithm: the optimization metric of a
        full-domain search (default ``loss``), Mondrian's mode (``strict``), the cost
        function of greedy merging (``nllm``), the microaggregation method (``mdav``).
    options
        Further :func:`anonkit.anonymize` options: Mondrian's ``split`` and
        ``numeric_release``, microaggregation's ``aggregate``.

    Raises
    ------
    UnknownNameError
        For an unknown algorithm, variant or option value.
    ParameterError
        For an option the algorithm does not take.

    Examples
    --------
    >>> AlgorithmSpec("greedy_merge", "ncp").cell
    'greedy_merge:ncp'
    >>> AlgorithmSpec("flash").anonymize_options()
    {'metric': 'loss'}
    """

    algorithm: str
    variant: str = ""
    options: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        known = (*_lattice_algorithms(), *_LOCAL_VARIANT)
        if self.algorithm not in known:
            raise UnknownNameError("algorithm", str(self.algorithm), known)
        variant = self.variant or _DEFAULT_VARIANT.get(self.algorithm, "loss")
        allowed = _variants(self.algorithm)
        if variant not in allowed:
            raise UnknownNameError(
                f"{_variant_key(self.algorithm)} of {self.algorithm}", str(variant), allowed
            )
        object.__setattr__(self, "variant", variant)
        extra = _EXTRA_OPTIONS.get(self.algorithm, ())
        for name, value in self.options.items():
            if name not in extra:
                raise ParameterError(
                    name,
                    f"the {self.algorithm} algorithm spec",
                    f"one of its options ({', '.join(extra) or 'none'})",
                    value,
                )
            values = _option_values(self.algorithm, name)
            if value not in values:
                raise UnknownNameError(f"{name} of {self.algorithm}", str(value), values)
        object.__setattr__(self, "options", MappingProxyType(dict(sorted(self.options.items()))))

    @property
    def cell(self) -> str:
        """The cell label ``algorithm:variant`` of the tidy table."""
        return f"{self.algorithm}:{self.variant}"

    @property
    def is_full_domain(self) -> bool:
        """Whether the algorithm generalizes whole columns (a lattice search)."""
        return self.algorithm in _lattice_algorithms()

    @property
    def reads_numbers(self) -> bool:
        """Whether numeric quasi-identifiers are read as numbers (Mondrian, MDAV...)."""
        return self.algorithm in ("mondrian", "microaggregation")

    def anonymize_options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`anonkit.anonymize` this spec sets."""
        return {_variant_key(self.algorithm): self.variant, **dict(self.options)}

    def to_dict(self) -> dict[str, str]:
        """The spec as a TOML/JSON table (``{"algorithm": ..., <variant key>: ...}``)."""
        return {"algorithm": self.algorithm, **self.anonymize_options()}

    def __hash__(self) -> int:
        return hash((self.algorithm, self.variant, tuple(self.options.items())))

    def __reduce__(self) -> tuple[Any, ...]:
        return (AlgorithmSpec, (self.algorithm, self.variant, dict(self.options)))


def parse_algorithm(entry: AlgorithmSpec | Mapping[str, Any]) -> tuple[AlgorithmSpec, ...]:
    """The specs of one ``algorithms`` entry; a list or ``"all"`` as variant expands.

    Examples
    --------
    >>> [s.cell for s in parse_algorithm({"algorithm": "mondrian", "mode": ["strict", "relaxed"]})]
    ['mondrian:strict', 'mondrian:relaxed']
    >>> len(parse_algorithm({"algorithm": "greedy_merge", "cost": "all"}))
    7
    """
    if isinstance(entry, AlgorithmSpec):
        return (entry,)
    if not isinstance(entry, Mapping) or "algorithm" not in entry:
        raise ParameterError("algorithms", OWNER, "a list of tables with an 'algorithm' key", entry)
    algorithm = entry["algorithm"]
    if not isinstance(algorithm, str):
        raise ParameterError("algorithm", "an algorithm spec", "a string", algorithm)
    key = _variant_key(algorithm)
    options = {name: value for name, value in entry.items() if name not in ("algorithm", key)}
    raw = entry.get(key, "")
    if raw == "all":
        wanted: list[object] = list(_variants(algorithm))
    elif isinstance(raw, (list, tuple)):
        wanted = list(raw)
    else:
        wanted = [raw]
    if not wanted:
        raise ParameterError(key, f"the {algorithm} algorithm spec", "a non-empty list", raw)
    out = []
    for variant in wanted:
        if not isinstance(variant, str):
            raise ParameterError(key, f"the {algorithm} algorithm spec", "a string", variant)
        out.append(AlgorithmSpec(algorithm, variant, MappingProxyType(dict(options))))
    return tuple(out)


def default_algorithms(
    numeric: Sequence[str], quasi_identifiers: Sequence[str] | None = None
) -> tuple[AlgorithmSpec, ...]:
    """The default algorithm set (the issue's): ``flash`` minimizing ``loss``, strict
    Mondrian, greedy merging under each of the 7 costs and, when every quasi-identifier is
    numeric, MDAV microaggregation. (Microaggregation aggregates the numeric attributes
    only; with categorical quasi-identifiers left as they are its release is not
    k-anonymous, so it is only in the default where it protects the whole record. List it
    explicitly to study it anyway: the analysis leaves out releases below their k.)

    Examples
    --------
    >>> [s.cell for s in default_algorithms(["age"])][:3]
    ['flash:loss', 'mondrian:strict', 'greedy_merge:distortion']
    >>> len(default_algorithms([])), len(default_algorithms(["age"], ["age", "sex"]))
    (9, 9)
    >>> default_algorithms(["age", "hours"], ["age", "hours"])[-1].cell
    'microaggregation:mdav'
    """
    specs = [AlgorithmSpec("flash", "loss"), AlgorithmSpec("mondrian", "strict")]
    specs += parse_algorithm({"algorithm": "greedy_merge", "cost": "all"})
    qi = numeric if quasi_identifiers is None else quasi_identifiers
    if numeric and set(qi) <= set(numeric):
        specs.append(AlgorithmSpec("microaggregation", "mdav"))
    return tuple(specs)


def _default_k() -> tuple[int, ...]:
    from anonkit.algorithms.greedy_merge import PAPER_K_VALUES

    return PAPER_K_VALUES


def _names(value: object, parameter: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return tuple(dict.fromkeys(value))
    raise ParameterError(parameter, OWNER, "a list of column names", value)


def _int(value: object, parameter: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ParameterError(parameter, OWNER, f"an int >= {minimum}", value)
    return value


def _synthetic_defaults() -> dict[str, Any]:
    """Target, quasi-identifiers and numeric columns the synthetic generator declares."""
    try:
        from anonkit.datasets import synthetic
    except ImportError:
        return {}
    out: dict[str, Any] = {}
    for key, names in (
        ("target", ("TARGET", "SYNTHETIC_TARGET")),
        ("quasi_identifiers", ("QUASI_IDENTIFIERS", "SYNTHETIC_QUASI_IDENTIFIERS")),
        ("numeric", ("NUMERIC", "SYNTHETIC_NUMERIC")),
    ):
        for name in names:
            if hasattr(synthetic, name):
                out[key] = getattr(synthetic, name)
                break
    return out


@dataclass(frozen=True)
class StudyConfig:
    """The settings of a utility study, validated once (see the module docstring).

    Parameters
    ----------
    dataset
        ``"adult"`` (the bundled UCI Adult extract), ``"synthetic"``
        (:mod:`anonkit.datasets.synthetic`), or the path of a CSV or Parquet table.
    target
        The column the classifiers predict; kept unchanged in every release. Default for
        Adult: ``salary-class``; other tables must name it (the synthetic generator may
        declare its own).
    quasi_identifiers
        Columns that are anonymized and used as features. Default: Adult's other 8
        columns; for a table, the columns of ``hierarchies``.
    numeric
        Quasi-identifiers Mondrian and microaggregation read as numbers (Adult: ``age``);
        full-domain searches and greedy merging use their hierarchy. Cast to numbers when
        the data is loaded.
    features
        Extra (non-quasi-identifier) feature columns, used as they are.
    hierarchies
        Per quasi-identifier: a :class:`~anonkit.core.hierarchy.Hierarchy`, a hierarchy
        file or a builder table (as in :func:`anonkit.anonymize`); for Adult they
        replace the bundled ones.
    k_values
        The requested k (default: the 21 values of ``PAPER_K_VALUES``, 2 ... 15,000).
        A k larger than a training split makes failed cells, not a failed study.
    algorithms
        :class:`AlgorithmSpec` objects or tables such as ``{"algorithm": "greedy_merge",
        "cost": "all"}`` (default: :func:`default_algorithms`).
    suppression_limit
        Share of records full-domain searches may suppress, in [0, 1].
    classifiers
        Classifier names of :mod:`anonkit.study.ml`.
    folds
        1: one stratified train/test split; >= 2: stratified K-fold (fold f tests on part f).
    test_size
        Share of records held out when ``folds == 1``, in (0, 1).
    seed
        Seed of the splits and of the classifiers.
    workers
        Processes computing cells (default ``os.cpu_count()``; 1 runs in this process).
    output
        Folder of ``results.csv``, ``study.json`` and ``report.html``.
    cache
        Folder of the finished cells (default ``<output>/cache``).
    separator
        CSV separator of a table dataset (detected when omitted).
    sample
        Use a random sample of this many complete records (drawn with ``seed``, kept in
        table order) instead of all of them; for quick studies and tests.

    Raises
    ------
    ParameterError, UnknownNameError
        For an invalid setting (columns are checked against the data when it is loaded,
        raising :class:`~anonkit.exceptions.UnknownColumnError`).

    Examples
    --------
    >>> cfg = StudyConfig(k_values=[2, 10], algorithms=[{"algorithm": "flash"}])
    >>> cfg.target, cfg.quasi_identifiers[:2], cfg.numeric, [s.cell for s in cfg.algorithms]
    ('salary-class', ('sex', 'age'), ('age',), ['flash:loss'])
    >>> try:
    ...     StudyConfig(folds=0)
    ... except ParameterError as err:
    ...     print(err)
    The 'folds' parameter of StudyConfig must be an int >= 1. Got 0 instead.
    """

    dataset: str = "adult"
    target: str | None = None
    quasi_identifiers: tuple[str, ...] | None = None
    numeric: tuple[str, ...] | None = None
    features: tuple[str, ...] = ()
    hierarchies: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    k_values: tuple[int, ...] | None = None
    algorithms: tuple[AlgorithmSpec, ...] | None = None
    suppression_limit: float = 0.0
    classifiers: tuple[str, ...] = DEFAULT_CLASSIFIERS
    folds: int = 1
    test_size: float = 0.2
    seed: int = 0
    workers: int | None = None
    output: Path = Path("study")
    cache: Path | None = None
    separator: str | None = None
    sample: int | None = None

    def __post_init__(self) -> None:
        setter = object.__setattr__
        dataset = self.dataset
        if isinstance(dataset, Path):
            dataset = str(dataset)
        if not isinstance(dataset, str) or not dataset:
            raise ParameterError(
                "dataset", OWNER, f"one of {BUILTIN_DATASETS} or a table's path", dataset
            )
        setter(self, "dataset", dataset)
        defaults: dict[str, Any] = {}
        if dataset == "adult":
            from anonkit.datasets import ADULT_COLUMNS

            chosen = self.target or ADULT_TARGET
            defaults = {
                "target": ADULT_TARGET,
                "numeric": tuple(c for c in ADULT_NUMERIC if c != chosen),
            }
            defaults["quasi_identifiers"] = tuple(c for c in ADULT_COLUMNS if c != chosen)
        elif dataset == "synthetic":
            defaults = _synthetic_defaults()
        target: object = self.target if self.target is not None else defaults.get("target")
        if not isinstance(target, str) or not target:
            raise ParameterError("target", OWNER, "the name of the class column", target)
        setter(self, "target", target)

        if not isinstance(self.hierarchies, Mapping):
            raise ParameterError(
                "hierarchies", OWNER, "a mapping of column to hierarchy", self.hierarchies
            )
        setter(self, "hierarchies", MappingProxyType(dict(self.hierarchies)))
        qi = self.quasi_identifiers
        if qi is None:
            qi = defaults.get("quasi_identifiers") or tuple(
                c for c in self.hierarchies if c != target
            )
        qi = _names(qi, "quasi_identifiers")
        if not qi:
            raise ParameterError(
                "quasi_identifiers", OWNER, "at least one column (or hierarchies to take)", qi
            )
        if target in qi:
            raise ParameterError("target", OWNER, "a column that is not a quasi-identifier", target)
        setter(self, "quasi_identifiers", qi)
        numeric = self.numeric if self.numeric is not None else defaults.get("numeric", ())
        numeric = _names(numeric, "numeric")
        not_qi = [c for c in numeric if c not in qi]
        if not_qi:
            raise ParameterError("numeric", OWNER, "quasi-identifiers", not_qi[0])
        setter(self, "numeric", numeric)
        features = _names(self.features, "features")
        clash = [c for c in features if c in qi or c == target]
        if clash:
            raise ParameterError(
                "features", OWNER, "columns other than the quasi-identifiers and target", clash[0]
            )
        setter(self, "features", features)

        k_values = self.k_values if self.k_values is not None else _default_k()
        if isinstance(k_values, int) and not isinstance(k_values, bool):
            k_values = (k_values,)
        if not isinstance(k_values, Sequence) or isinstance(k_values, str) or not k_values:
            raise ParameterError("k_values", OWNER, "a non-empty list of ints >= 1", k_values)
        setter(self, "k_values", tuple(dict.fromkeys(_int(k, "k_values", 1) for k in k_values)))

        if self.algorithms is None:
            specs = default_algorithms(numeric, qi)
        else:
            entries = self.algorithms
            if isinstance(entries, (Mapping, AlgorithmSpec)):
                entries = (entries,)  # type: ignore[assignment]
            if not isinstance(entries, Sequence) or isinstance(entries, str) or not entries:
                raise ParameterError(
                    "algorithms", OWNER, "a non-empty list of algorithm specs", entries
                )
            specs = tuple(s for entry in entries for s in parse_algorithm(entry))
        specs = tuple(dict.fromkeys(specs))
        local = [s for s in specs if s.algorithm == "microaggregation"]
        if local and not numeric:
            raise ParameterError(
                "algorithms",
                OWNER,
                "microaggregation only with numeric quasi-identifiers",
                "microaggregation",
            )
        setter(self, "algorithms", specs)

        limit = self.suppression_limit
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not 0 <= limit <= 1:
            raise ParameterError("suppression_limit", OWNER, "a share between 0 and 1", limit)
        setter(self, "suppression_limit", float(limit))
        classifiers = _names(self.classifiers, "classifiers")
        if not classifiers:
            raise ParameterError("classifiers", OWNER, "at least one classifier name", classifiers)
        known = CLASSIFIERS
        for name in classifiers:
            if name not in known:
                raise UnknownNameError("classifier", name, known)
        setter(self, "classifiers", classifiers)
        _int(self.folds, "folds", 1)
        size = self.test_size
        if (
            isinstance(size, bool)
            or not isinstance(size, (int, float))
            or not 0 < size < 1
            or not math.isfinite(size)
        ):
            raise ParameterError("test_size", OWNER, "a share strictly between 0 and 1", size)
        setter(self, "test_size", float(size))
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ParameterError("seed", OWNER, "an int", self.seed)
        if self.workers is not None:
            _int(self.workers, "workers", 1)
        for name in ("output", "cache"):
            value = getattr(self, name)
            if value is None and name == "cache":
                continue
            if not isinstance(value, (str, Path)) or str(value) == "":
                raise ParameterError(name, OWNER, "a folder path", value)
            setter(self, name, Path(value))
        if self.separator is not None and (
            not isinstance(self.separator, str) or len(self.separator) != 1
        ):
            raise ParameterError("separator", OWNER, "a single character", self.separator)
        if self.sample is not None:
            _int(self.sample, "sample", 2)

    # ------------------------------------------------------------------ derived
    @property
    def name(self) -> str:
        """The dataset's name in the tidy table: ``adult``, ``synthetic`` or the file stem."""
        return self.dataset if self.dataset in BUILTIN_DATASETS else Path(self.dataset).stem

    @property
    def cache_folder(self) -> Path:
        """Where finished cells are kept (``cache`` or ``<output>/cache``)."""
        return self.cache if self.cache is not None else Path(self.output) / "cache"

    @property
    def n_workers(self) -> int:
        """Processes to run (``workers`` or the number of cores)."""
        return self.workers if self.workers is not None else max(1, os.cpu_count() or 1)

    def replace(self, **changes: Any) -> StudyConfig:
        """A copy with some settings changed (validated again)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update(changes)
        return StudyConfig(**values)

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain JSON-ready values (for ``study.json``); no data."""
        hierarchies: dict[str, Any] = {}
        for column, spec in self.hierarchies.items():
            if isinstance(spec, (str, Path)):
                hierarchies[column] = str(spec)
            elif isinstance(spec, Mapping):
                hierarchies[column] = {str(k): v for k, v in spec.items()}
            else:
                hierarchies[column] = repr(spec)
        assert self.k_values is not None and self.algorithms is not None
        return {
            "dataset": self.dataset,
            "target": self.target,
            "quasi_identifiers": list(self.quasi_identifiers or ()),
            "numeric": list(self.numeric or ()),
            "features": list(self.features),
            "hierarchies": hierarchies,
            "k_values": list(self.k_values),
            "algorithms": [s.to_dict() for s in self.algorithms],
            "suppression_limit": self.suppression_limit,
            "classifiers": list(self.classifiers),
            "folds": self.folds,
            "test_size": self.test_size,
            "seed": self.seed,
            "workers": self.n_workers,
            "output": str(self.output),
            "cache": str(self.cache_folder),
            "separator": self.separator,
            "sample": self.sample,
        }

    def __reduce__(self) -> tuple[Any, ...]:
        # mappingproxy cannot be pickled; the spawned workers receive plain dicts
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["hierarchies"] = dict(self.hierarchies)
        return (_rebuild, (values,))

    # ------------------------------------------------------------------ TOML
    @classmethod
    def from_toml(cls, path: str | Path) -> StudyConfig:
        """Read a study configuration file (see the module docstring for the format).

        Raises
        ------
        InputFileError
            If the file is missing or unreadable.
        ConfigError
            If it is not TOML, or holds an unknown key or a key of the wrong type.
        ParameterError, UnknownNameError
            For an invalid setting.
        """
        from anonkit.io.config import read_toml

        return cls(**_toml_settings(read_toml(path), Path(path).resolve()))


def _rebuild(values: dict[str, Any]) -> StudyConfig:
    return StudyConfig(**values)


# ---------------------------------------------------------------------------- TOML keys
_TOP: dict[str, str] = {
    "dataset": "dataset",
    "target": "target",
    "k": "k_values",
    "suppression_limit": "suppression_limit",
    "classifiers": "classifiers",
    "folds": "folds",
    "test_size": "test_size",
    "seed": "seed",
    "workers": "workers",
    "output": "output",
    "cache": "cache",
    "separator": "separator",
    "sample": "sample",
    "algorithms": "algorithms",
}
_ATTRIBUTES = ("quasi_identifiers", "numeric", "features")


def _toml_settings(data: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """Keyword arguments of :class:`StudyConfig` from a parsed TOML document.

    ``[attributes]`` and ``[hierarchies]`` are read by :func:`anonkit.io.config.parse_config`
    (the ``anonkit anonymize`` format: relative hierarchy files resolved against the
    configuration's folder, builder tables checked).
    """
    from anonkit.io.config import parse_config

    where = str(path)
    sections = ("attributes", "hierarchies")
    for key, value in data.items():
        if key in sections:
            if not isinstance(value, dict):
                raise ConfigError(f"The key '{key}' in {where} must be a table (section).")
        elif key not in _TOP:
            known = ", ".join([*_TOP, *(f"[{s}]" for s in sections)])
            raise ConfigError(f"Unknown key '{key}' in {where}; expected one of: {known}.")
    attrs = dict(data.get("attributes", {}))
    for sub in attrs:
        if sub not in _ATTRIBUTES:
            raise ConfigError(
                f"Unknown key '{sub}' in section [attributes] of {where}; "
                f"expected one of: {', '.join(_ATTRIBUTES)}."
            )
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
        if key in ("output", "cache") or (key == "dataset" and value not in BUILTIN_DATASETS):
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
        elif key == "classifiers":
            value = _toml_names(value, key, where)
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
