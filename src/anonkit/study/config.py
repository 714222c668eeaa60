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
    repeats = 1                  # repeated K-fold (folds = 2, repeats = 5: 5x2 CV)
    suppression_limits = [0.0, 0.01, 0.05]   # a grid dimension (full-domain algorithms)
    tuning = false               # small hyper-parameter grid, CV inside the training split
    test_size = 0.2              # folds = 1 only
    seed = 0
    workers = 2                  # processes (default: the number of cores)
    output = "study-adult"       # results.csv, study.json, report.html
    cache = "study-adult/cache"  # one JSON file per finished cell (default <output>/cache)
    separator = ";"              # CSV datasets only (detected if omitted)
    missing = ["", "?"]          # CSV cells read as missing values (rows dropped)
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

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from anonkit._frozen import FrozenDict
from anonkit._validation import check_int, check_real
from anonkit.algorithms.greedy_merge import PAPER_K_VALUES
from anonkit.datasets import (
    ADULT_COLUMNS,
    SYNTHETIC_NUMERIC,
    SYNTHETIC_QUASI_IDENTIFIERS,
    SYNTHETIC_TARGET,
)
from anonkit.exceptions import ParameterError, UnknownNameError
from anonkit.io.toml import read_toml
from anonkit.study.config_file import toml_error, toml_settings
from anonkit.study.setup import CLASSIFIERS
from anonkit.study.specs import AlgorithmSpec, default_algorithms, parse_algorithm

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
#: Largest seed: scikit-learn's ``random_state`` is an int in ``[0, 2**32 - 1]``.
MAX_SEED = 2**32 - 1
#: Adult's class column, the target of Kohavi's original task.
ADULT_TARGET = "salary-class"
#: Adult's quasi-identifiers read as numbers by Mondrian and microaggregation.
ADULT_NUMERIC: tuple[str, ...] = ("age",)


def _names(value: object, parameter: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return tuple(dict.fromkeys(value))
    raise ParameterError(parameter, OWNER, "a list of column names", value)


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
        the data is loaded. Microaggregation needs at least one and releases the other
        quasi-identifiers at the root of their hierarchy
        (:mod:`anonkit.study.microaggregation`).
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
    suppression_limits
        Several suppression limits, a dimension of the grid: every full-domain algorithm
        runs once per limit (cell label ``flash:loss@1%``); local-recoding algorithms,
        which do not suppress, run once. Default: ``(suppression_limit,)``. Given with a
        ``suppression_limit`` other than 0, that limit must be one of them.
    classifiers
        Classifier names of :mod:`anonkit.study.ml`.
    folds
        1: one stratified train/test split; >= 2: stratified K-fold (fold f tests on part f).
    repeats
        With ``folds >= 2``: repeat the stratified K-fold this many times, each with its
        own shuffle (Dietterich's 5x2 cross-validation is ``folds=2, repeats=5``). Split
        ``r * folds + f`` is fold ``f`` of repeat ``r``.
    tuning
        Tune each classifier on a small grid by cross-validation inside the training
        split (:func:`anonkit.study.ml.make_classifier`); off by default (3 to 5 times
        the fitting time).
    test_size
        Share of records held out when ``folds == 1``, in (0, 1).
    seed
        Seed of the splits and of the classifiers, in ``[0, 2**32 - 1]`` (what
        scikit-learn's ``random_state`` takes).
    workers
        Processes computing cells (default ``os.cpu_count()``; 1 runs in this process).
    output
        Folder of ``results.csv``, ``study.json`` and ``report.html``.
    cache
        Folder of the finished cells (default ``<output>/cache``).
    separator
        CSV separator of a table dataset (detected when omitted).
    missing
        Cell texts of a table dataset read as missing values (rows holding one are left
        out); default ``("",)``, ``("", "?")`` for the raw UCI Adult file.
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
    hierarchies: Mapping[str, Any] = field(default_factory=lambda: FrozenDict({}))
    k_values: tuple[int, ...] | None = None
    algorithms: tuple[AlgorithmSpec, ...] | None = None
    suppression_limit: float = 0.0
    classifiers: tuple[str, ...] = DEFAULT_CLASSIFIERS
    folds: int = 1
    repeats: int = 1
    suppression_limits: tuple[float, ...] | None = None
    tuning: bool = False
    test_size: float = 0.2
    seed: int = 0
    workers: int | None = None
    output: Path = Path("study")
    cache: Path | None = None
    separator: str | None = None
    sample: int | None = None
    missing: tuple[str, ...] = ("",)

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
            chosen = self.target or ADULT_TARGET
            defaults = {
                "target": ADULT_TARGET,
                "numeric": tuple(c for c in ADULT_NUMERIC if c != chosen),
            }
            defaults["quasi_identifiers"] = tuple(c for c in ADULT_COLUMNS if c != chosen)
        elif dataset == "synthetic":
            defaults = {
                "target": SYNTHETIC_TARGET,
                "quasi_identifiers": SYNTHETIC_QUASI_IDENTIFIERS,
                "numeric": SYNTHETIC_NUMERIC,
            }
        target: object = self.target if self.target is not None else defaults.get("target")
        if not isinstance(target, str) or not target:
            raise ParameterError("target", OWNER, "the name of the class column", target)
        setter(self, "target", target)

        if not isinstance(self.hierarchies, Mapping):
            raise ParameterError(
                "hierarchies", OWNER, "a mapping of column to hierarchy", self.hierarchies
            )
        setter(self, "hierarchies", FrozenDict(dict(self.hierarchies)))
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

        k_values = self.k_values if self.k_values is not None else PAPER_K_VALUES
        if isinstance(k_values, int) and not isinstance(k_values, bool):
            k_values = (k_values,)
        if not isinstance(k_values, Sequence) or isinstance(k_values, str) or not k_values:
            raise ParameterError("k_values", OWNER, "a non-empty list of ints >= 1", k_values)
        setter(
            self,
            "k_values",
            tuple(dict.fromkeys(check_int(k, "k_values", OWNER, low=1) for k in k_values)),
        )

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
                "microaggregation only with numeric quasi-identifiers (declared in "
                "'numeric'; it aggregates those and the categorical ones are released at the "
                "root of their hierarchy)",
                "microaggregation",
            )
        setter(self, "algorithms", specs)

        limit = check_real(
            self.suppression_limit, "suppression_limit", OWNER, low=0, high=1, noun="a share"
        )
        setter(self, "suppression_limit", limit)
        limits = self.suppression_limits if self.suppression_limits is not None else (limit,)
        if isinstance(limits, (int, float)) and not isinstance(limits, bool):
            limits = (limits,)
        if not isinstance(limits, Sequence) or isinstance(limits, str) or not limits:
            raise ParameterError(
                "suppression_limits", OWNER, "a non-empty list of shares in [0, 1]", limits
            )
        limits = tuple(
            dict.fromkeys(
                check_real(v, "suppression_limits", OWNER, low=0, high=1, noun="a share")
                for v in limits
            )
        )
        if limit != 0.0 and limit not in limits:  # 0.0, the default, says nothing
            raise ParameterError(
                "suppression_limit",
                OWNER,
                f"one of suppression_limits {list(limits)} when both are given (the grid "
                "runs suppression_limits only)",
                limit,
            )
        setter(self, "suppression_limits", limits)
        if not isinstance(self.tuning, bool):
            raise ParameterError("tuning", OWNER, "true or false", self.tuning)
        classifiers = _names(self.classifiers, "classifiers")
        if not classifiers:
            raise ParameterError("classifiers", OWNER, "at least one classifier name", classifiers)
        known = CLASSIFIERS
        for name in classifiers:
            if name not in known:
                raise UnknownNameError("classifier", name, known)
        setter(self, "classifiers", classifiers)
        setter(self, "folds", check_int(self.folds, "folds", OWNER, low=1))
        setter(self, "repeats", check_int(self.repeats, "repeats", OWNER, low=1))
        if self.repeats > 1 and self.folds < 2:
            raise ParameterError("repeats", OWNER, "1 unless folds >= 2", self.repeats)
        size = check_real(
            self.test_size, "test_size", OWNER, low=0, high=1, closed="neither", noun="a share"
        )
        setter(self, "test_size", size)
        # scikit-learn's random_state (splits, classifiers) takes [0, 2**32 - 1]
        setter(self, "seed", check_int(self.seed, "seed", OWNER, low=0, high=MAX_SEED))
        if self.workers is not None:
            setter(self, "workers", check_int(self.workers, "workers", OWNER, low=1))
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
            setter(self, "sample", check_int(self.sample, "sample", OWNER, low=2))
        if isinstance(self.missing, str) or not all(isinstance(v, str) for v in self.missing):
            raise ParameterError("missing", OWNER, "a list of cell texts", self.missing)
        setter(self, "missing", tuple(self.missing))

    # ------------------------------------------------------------------ derived
    @property
    def name(self) -> str:
        """The dataset's name in the tidy table: ``adult``, ``synthetic`` or the file stem."""
        return self.dataset if self.dataset in BUILTIN_DATASETS else Path(self.dataset).stem

    @property
    def n_splits(self) -> int:
        """Train/test splits of the study: ``folds * repeats``."""
        return self.folds * self.repeats

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
        if (
            "suppression_limit" in changes
            and "suppression_limits" not in changes
            and self.suppression_limits == (self.suppression_limit,)
        ):
            values["suppression_limits"] = None  # derived from the limit: derive it again
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
            "repeats": self.repeats,
            "suppression_limits": list(self.suppression_limits or ()),
            "tuning": self.tuning,
            "test_size": self.test_size,
            "seed": self.seed,
            "workers": self.n_workers,
            "output": str(self.output),
            "cache": str(self.cache_folder),
            "separator": self.separator,
            "sample": self.sample,
            "missing": list(self.missing),
        }

    # ------------------------------------------------------------------ TOML
    @classmethod
    def from_toml(cls, path: str | Path) -> StudyConfig:
        """Read a study configuration file (see the module docstring for the format).

        Raises
        ------
        InputFileError
            If the file is missing or unreadable.
        ConfigError
            If it is not TOML, or holds an unknown key or a key of the wrong type, or a
            setting is invalid: the message names the key and the file (the
            :class:`ParameterError` of the setting is its ``__cause__``).
        UnknownNameError
            For an unknown classifier, algorithm or variant (the message says which key of
            the file names it).
        """
        where = Path(path).resolve()
        settings = toml_settings(read_toml(path), where, BUILTIN_DATASETS)
        try:
            return cls(**settings)
        except (ParameterError, UnknownNameError) as err:
            told = toml_error(err, where, OWNER)
            if told is err:
                raise
            raise told from err
