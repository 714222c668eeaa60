"""The grid of a study: its data, its train/test splits and its cells with stable keys.

A *cell* is one (fold, requested k, algorithm spec) of the grid, or the baselines of a fold
(classifiers on the original training data, and the majority class). Its :func:`cell_key`
hashes everything that determines its figures, the dataset's fingerprint included, so a
finished cell found in the cache under that key can be reused safely and a changed
setting, table or hierarchy computes afresh.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from anonkit import __version__
from anonkit._arrays import IntArray
from anonkit.config import AnonymizeConfig, prepare_inputs
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import resolve_hierarchy
from anonkit.datasets import load_adult
from anonkit.datasets.synthetic import load_synthetic
from anonkit.estimators.bare import only_star
from anonkit.exceptions import (
    DataError,
    EmptyDataError,
    ParameterError,
    SuppressedColumnWarning,
    UnknownColumnError,
)
from anonkit.study.config import OWNER, StudyConfig
from anonkit.study.specs import AlgorithmSpec

__all__ = [
    "Cell",
    "NoHierarchyWarning",
    "StudyData",
    "cell_key",
    "dataset_fingerprint",
    "load_study_data",
    "split_indices",
    "study_cells",
]


#: Bumped when the figures of a cell change meaning, so old cache entries are not reused.
CACHE_FORMAT = 3


@dataclass(frozen=True)
class StudyData:
    """The table of a study, ready for the cells.

    Attributes
    ----------
    frame
        The used columns (quasi-identifiers, target, features) without rows holding
        missing values; numeric quasi-identifiers cast to numbers (Int64 when whole).
    hierarchies
        The resolved hierarchy of every quasi-identifier (numeric ones included).
    fingerprint
        :func:`dataset_fingerprint` of the two.
    dropped
        Rows left out for missing values.
    available
        Complete rows before ``sample`` was drawn.
    without_hierarchy
        Quasi-identifiers given no hierarchy but ``*`` (none, or a suppression table):
        their hierarchy maps every value to ``*``, so cells can only keep them or
        suppress them (:class:`NoHierarchyWarning`).
    """

    frame: pl.DataFrame
    hierarchies: Mapping[str, Hierarchy]
    fingerprint: str
    dropped: int
    available: int
    without_hierarchy: tuple[str, ...] = ()


class NoHierarchyWarning(SuppressedColumnWarning):
    """Quasi-identifiers of a study have no hierarchy but ``*``, so its cells can only
    keep them as they stand or release ``*`` for them in every record.

    :func:`~anonkit.study.runner.run_study` warns once, before the cells (the cells
    anonymize with the resolved value -> ``*`` hierarchy, so the
    :class:`~anonkit.exceptions.SuppressedColumnWarning` of :func:`anonkit.anonymize`
    does not arise there); a filter on that warning catches this one too.
    """

    def __init__(self, columns: Sequence[str]) -> None:
        self.columns = list(columns)
        names = ", ".join(repr(c) for c in self.columns)
        them = "it" if len(self.columns) == 1 else "them"
        UserWarning.__init__(
            self,
            f"{names} had no hierarchy but '*', so the study's cells can only keep {them} "
            f"as {'it stands' if them == 'it' else 'they stand'} or show '*' for {them} in "
            "every record (a column without a hierarchy can only be kept or suppressed; "
            "Mondrian and microaggregation read numeric columns as numbers); give a "
            "hierarchy to generalize instead, in the study's hierarchies ([hierarchies] of "
            "its TOML file): a hierarchy CSV file, or a builder table such as "
            '{type = "intervals", widths = [5, 10, 20]} for numbers or {type = "masking"} '
            "for codes (anonkit.builders).",
        )


def _raw_dataset(
    config: StudyConfig,
) -> tuple[pl.DataFrame, dict[str, Hierarchy], tuple[str, ...]]:
    """The whole table, the hierarchies of its quasi-identifiers, and those given no
    hierarchy but ``*``."""

    qi = list(config.quasi_identifiers or ())
    specs: Mapping[str, Any]
    if config.dataset in ("adult", "synthetic"):
        if config.dataset == "adult":
            frame, specs = load_adult()
        else:
            frame, specs = load_synthetic()
        merged: dict[str, Any] = {**specs, **config.hierarchies}
        missing = [c for c in qi if c not in frame.columns]
        if missing:
            raise UnknownColumnError(missing, frame.columns)
        bare = tuple(c for c in qi if only_star(merged.get(c)))
        return frame, {c: resolve_hierarchy(c, merged.get(c), frame[c]) for c in qi}, bare
    # a table: the reading and hierarchy resolution of ``anonkit anonymize`` configurations
    run = AnonymizeConfig(
        path=None,
        input=Path(config.dataset),
        quasi_identifiers=tuple(qi),
        k=1,
        separator=config.separator,
        hierarchies=config.hierarchies,
        missing=config.missing,
    )
    frame, hierarchies = prepare_inputs(run)
    missing = [c for c in qi if c not in frame.columns]
    if missing:
        raise UnknownColumnError(missing, frame.columns)
    return frame, hierarchies, tuple(c for c in qi if only_star(config.hierarchies.get(c)))


def _as_numbers(frame: pl.DataFrame, column: str) -> pl.Series:
    series = frame[column]
    if series.dtype.is_numeric():
        values = series.cast(pl.Float64)
    else:
        values = series.cast(pl.String).str.strip_chars().cast(pl.Float64, strict=False)
    bad = int(values.is_null().sum()) + int(values.is_nan().sum())
    if bad:
        raise DataError(
            f"Column {column!r} is declared numeric but {bad} of its values are not numbers."
        )
    if bool((values == values.round(0)).all()):
        return values.cast(pl.Int64).alias(column)
    return values.alias(column)


def load_study_data(config: StudyConfig) -> StudyData:
    """Load the dataset of ``config``: used columns, complete rows, numeric columns cast.

    Raises
    ------
    UnknownColumnError
        If a configured column is not in the table.
    InputFileError, EmptyDataError, DataError
        If the table cannot be read, has no complete row, or a numeric column holds text.
    ParameterError
        If ``sample`` asks for more records than the table has complete ones.
    """
    frame, hierarchies, bare = _raw_dataset(config)
    target = str(config.target)
    used = list(dict.fromkeys([*(config.quasi_identifiers or ()), target, *config.features]))
    missing = [c for c in used if c not in frame.columns]
    if missing:
        raise UnknownColumnError(missing, frame.columns)
    data = frame.select(used)
    text = [c for c in used if data[c].dtype == pl.String]
    if text:  # empty cells are missing values too
        data = data.with_columns(
            [
                pl.when(pl.col(c).str.strip_chars() == "").then(None).otherwise(pl.col(c)).alias(c)
                for c in text
            ]
        )
    complete = data.drop_nulls()
    available = complete.height
    if complete.height == 0:
        raise EmptyDataError("The study table (after dropping rows with missing values)")
    if config.sample is not None and config.sample > available:
        raise _sample_too_large(config, available, frame.height - available)
    if config.sample is not None and config.sample < complete.height:
        rng = np.random.default_rng(config.seed)
        chosen = np.sort(rng.choice(complete.height, size=config.sample, replace=False))
        complete = complete[chosen]
    complete = complete.with_columns([_as_numbers(complete, c) for c in config.numeric or ()])
    classes = complete[target].n_unique()
    if classes < 2:
        raise DataError(f"The target column {target!r} holds {classes} class; a study needs two.")
    return StudyData(
        frame=complete,
        hierarchies=hierarchies,
        fingerprint=dataset_fingerprint(complete, hierarchies),
        dropped=frame.height - available,
        available=available,
        without_hierarchy=bare,
    )


def _sample_too_large(config: StudyConfig, available: int, dropped: int) -> ParameterError:
    """The error of a ``sample`` larger than the table: naming the table and its size
    (the study used to take every record instead, silently)."""
    source = {"adult": "the bundled Adult table", "synthetic": "the synthetic table"}.get(
        config.dataset, config.dataset
    )
    rows = "row" if dropped == 1 else "rows"
    left = f" ({dropped:,} {rows} left out for missing values)" if dropped else ""
    return ParameterError(
        "sample",
        OWNER,
        f"at most the {available:,} complete records of {source}{left}",
        config.sample,
        " Leave 'sample' out to use every record.",
    )


def dataset_fingerprint(frame: pl.DataFrame, hierarchies: Mapping[str, Hierarchy]) -> str:
    """A stable hash of a table and its hierarchies (hex, 32 characters).

    SHA-256 over the column names and types, the table as CSV text and every hierarchy's
    rows: equal for equal inputs across runs, processes and library versions.

    Examples
    --------
    >>> df = pl.DataFrame({"a": ["x", "y"]})
    >>> dataset_fingerprint(df, {}) == dataset_fingerprint(df.clone(), {})
    True
    >>> dataset_fingerprint(df, {}) == dataset_fingerprint(df.reverse(), {})
    False
    """
    digest = hashlib.sha256()
    digest.update(json.dumps([[c, str(t)] for c, t in frame.schema.items()]).encode())
    digest.update(frame.write_csv().encode())
    for name in sorted(hierarchies):
        digest.update(json.dumps([name, hierarchies[name].rows]).encode())
    return digest.hexdigest()[:32]


def split_indices(
    target: pl.Series, *, folds: int, test_size: float, seed: int, repeats: int = 1
) -> list[tuple[IntArray, IntArray]]:
    """Train and test row indices of every fold, stratified on ``target``.

    ``folds == 1``: one split holding out ``test_size`` of the rows
    (``sklearn.model_selection.train_test_split``); ``folds >= 2``: stratified K-fold
    with shuffling, fold ``f`` testing on part ``f``; ``repeats > 1`` repeats it with a
    new shuffle each time (``RepeatedStratifiedKFold``; split ``r * folds + f``), e.g.
    Dietterich's 5x2 cross-validation. Indices are sorted, so the rows keep the table's
    order.

    Raises
    ------
    ParameterError
        If a class is too rare for the requested split.

    Examples
    --------
    >>> y = pl.Series(["a", "b"] * 10)
    >>> [(len(tr), len(te)) for tr, te in split_indices(y, folds=1, test_size=0.2, seed=0)]
    [(16, 4)]
    >>> [len(te) for _, te in split_indices(y, folds=5, test_size=0.2, seed=0)]
    [4, 4, 4, 4, 4]
    >>> len(split_indices(y, folds=2, test_size=0.2, seed=0, repeats=5))
    10
    """
    from sklearn.model_selection import (
        RepeatedStratifiedKFold,
        StratifiedKFold,
        train_test_split,
    )

    y = target.cast(pl.String).to_numpy()
    rows = np.arange(y.shape[0], dtype=np.int64)
    if folds > 1 and int(np.unique(y, return_counts=True)[1].min()) < folds:
        raise ParameterError(
            "folds",
            "the study's train/test split",
            "at most the size of the target's rarest class",
            folds,
        )
    try:
        if folds == 1:
            train, test = train_test_split(rows, test_size=test_size, random_state=seed, stratify=y)
            pairs = [(train, test)]
        elif repeats > 1:
            repeated = RepeatedStratifiedKFold(n_splits=folds, n_repeats=repeats, random_state=seed)
            pairs = list(repeated.split(rows, y))
        else:
            splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
            pairs = list(splitter.split(rows, y))
    except ValueError as exc:  # a class with too few members for the split
        raise ParameterError(
            "folds" if folds > 1 else "test_size",
            "the study's train/test split",
            "possible for the target's class counts",
            folds if folds > 1 else test_size,
        ) from exc
    return [(np.sort(tr).astype(np.int64), np.sort(te).astype(np.int64)) for tr, te in pairs]


@dataclass(frozen=True)
class Cell:
    """One unit of work: the baselines of a fold (``spec is None``) or one grid cell.

    ``suppression`` is the suppression limit of a full-domain cell; ``labelled`` says
    whether the study varies it, so that the cell's name carries it (``flash:loss@1%``).

    Examples
    --------
    >>> Cell(0, 5, AlgorithmSpec("flash")).label, Cell(0, 1, None).label
    ('fold 0, k=5, flash:loss', 'fold 0, baselines')
    >>> Cell(0, 5, AlgorithmSpec("flash"), 0.05, labelled=True).name
    'flash:loss@5%'
    """

    fold: int
    k: int
    spec: AlgorithmSpec | None
    suppression: float = 0.0
    labelled: bool = False

    @property
    def name(self) -> str:
        """The cell column of the tidy table: ``algorithm:variant`` (``@limit%`` when the
        study varies the suppression limit of full-domain algorithms)."""
        if self.spec is None:
            return "baselines"
        if self.labelled and self.spec.is_full_domain:
            return f"{self.spec.cell}@{100 * self.suppression:g}%"
        return self.spec.cell

    @property
    def is_baseline(self) -> bool:
        return self.spec is None

    @property
    def label(self) -> str:
        """A short description for messages."""
        if self.spec is None:
            return f"fold {self.fold}, baselines"
        return f"fold {self.fold}, k={self.k}, {self.name}"


def study_cells(config: StudyConfig) -> tuple[Cell, ...]:
    """Every cell of the study: per split, the baselines, then k x algorithm spec (x
    suppression limit for full-domain algorithms; local recodings, which do not suppress,
    once with limit 0).

    Examples
    --------
    >>> cfg = StudyConfig(k_values=[2, 5], algorithms=[{"algorithm": "flash"}], folds=2)
    >>> [c.label for c in study_cells(cfg)][:3]
    ['fold 0, baselines', 'fold 0, k=2, flash:loss', 'fold 0, k=5, flash:loss']
    >>> len(study_cells(cfg))
    6
    """
    cells: list[Cell] = []
    limits = config.suppression_limits or (config.suppression_limit,)
    labelled = len(limits) > 1
    for fold in range(config.n_splits):
        cells.append(Cell(fold, 1, None))
        for k in config.k_values or ():
            for spec in config.algorithms or ():
                if spec.is_full_domain:
                    cells += [Cell(fold, k, spec, s, labelled) for s in limits]
                else:
                    cells.append(Cell(fold, k, spec, limits[0] if not labelled else 0.0, labelled))
    return tuple(cells)


def cell_key(cell: Cell, config: StudyConfig, fingerprint: str) -> str:
    """The cache key of ``cell``: SHA-256 of its settings and the dataset's fingerprint.

    Everything that changes the cell's figures enters: the data (fingerprint), columns,
    split (folds, test size, seed, fold), k, algorithm spec, suppression limit,
    classifiers and the anonkit version; the output folder and worker count do not.

    Examples
    --------
    >>> cfg = StudyConfig(k_values=[2])
    >>> a = cell_key(Cell(0, 2, AlgorithmSpec("flash")), cfg, "f")
    >>> a == cell_key(Cell(0, 2, AlgorithmSpec("flash")), cfg.replace(workers=3), "f")
    True
    >>> a == cell_key(Cell(0, 5, AlgorithmSpec("flash")), cfg, "f")
    False
    """
    settings: dict[str, Any] = {
        "format": CACHE_FORMAT,
        "anonkit": __version__,
        "dataset": fingerprint,
        "name": config.name,
        "target": config.target,
        "quasi_identifiers": list(config.quasi_identifiers or ()),
        "numeric": list(config.numeric or ()),
        "features": list(config.features),
        "folds": config.folds,
        "test_size": config.test_size if config.folds == 1 else None,
        "missing": list(config.missing),
        "seed": config.seed,
        "fold": cell.fold,
        "k": cell.k,
        "spec": cell.spec.to_dict() if cell.spec is not None else "baselines",
        "suppression_limit": (
            cell.suppression
            if cell.spec is not None and cell.spec.is_full_domain
            else config.suppression_limit
        ),
        "classifiers": list(config.classifiers),
    }
    if cell.spec is not None and cell.spec.algorithm == "microaggregation":
        # categorical quasi-identifiers released at their root; such cells failed before,
        # and a cached failure must not stand in for them
        settings["categorical_release"] = "root"
    if config.repeats > 1:
        settings["repeats"] = config.repeats
    if config.tuning:
        settings["tuning"] = True
    text = json.dumps(settings, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]
