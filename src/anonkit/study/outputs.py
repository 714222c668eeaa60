"""What a study writes: the tidy table (:data:`COLUMNS`), ``results.csv``, ``study.json``
(with the versions and the machine) and ``report.html``.

:func:`assemble` puts the rows of every cell in grid order and fills in the baseline
columns; :func:`check_outputs` refuses, before the work, output files that would replace
an input; :func:`write_outputs` writes the files together, atomically.
"""

from __future__ import annotations

import json
import math
import os
import platform
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import polars as pl

from anonkit import __version__
from anonkit._frozen import FrozenDict
from anonkit.io.write import check_output
from anonkit.metrics.cost_matrix import COST_FUNCTIONS
from anonkit.study.cache import CellOutcome
from anonkit.study.cells import LOSS_NAMES, STAGES
from anonkit.study.config import BUILTIN_DATASETS, StudyConfig
from anonkit.study.staging import staged_files

__all__ = [
    "COLUMNS",
    "FILES",
    "assemble",
    "check_outputs",
    "machine",
    "report_settings",
    "versions",
    "write_outputs",
]

#: The files a study writes into its output folder, by their name in ``StudyResult.paths``.
FILES: Mapping[str, str] = FrozenDict(
    {"results": "results.csv", "study": "study.json", "report": "report.html"}
)

_FIRST: dict[str, type[pl.DataType]] = {
    "dataset": pl.String,
    "fold": pl.Int64,
    "k": pl.Int64,
    "algorithm": pl.String,
    "variant": pl.String,
    "cell": pl.String,
    "suppression_limit": pl.Float64,
    "classifier": pl.String,
    "evaluation": pl.String,
    "accuracy": pl.Float64,
    "balanced_accuracy": pl.Float64,
    "roc_auc": pl.Float64,
    "single_class": pl.Boolean,
    "baseline_accuracy": pl.Float64,
    "accuracy_drop": pl.Float64,
    "effective_k": pl.Int64,
    "n_classes": pl.Int64,
    "suppressed_share": pl.Float64,
    "uncovered_share": pl.Float64,
    "average_risk": pl.Float64,
    "max_risk": pl.Float64,
    "release_id": pl.String,
}
#: The tidy table: column -> polars type, in order. One row per (fold, cell, classifier,
#: evaluation); see ``docs/studies`` and the issue-6 design for each column's meaning.
COLUMNS: Mapping[str, type[pl.DataType]] = FrozenDict(
    {
        **_FIRST,
        **{f"loss_{name}": pl.Float64 for name in LOSS_NAMES},
        **{f"alteration_{cost}": pl.Float64 for cost in COST_FUNCTIONS},
        **{f"seconds_{stage}": pl.Float64 for stage in STAGES},
        "status": pl.String,
    }
)
_FIGURES = tuple(
    c
    for c in COLUMNS
    if c
    not in (
        "dataset",
        "fold",
        "k",
        "algorithm",
        "variant",
        "cell",
        "suppression_limit",
        "classifier",
        "evaluation",
    )
    and not c.startswith("seconds_")
    and c != "status"
)


# ------------------------------------------------------------------------------ table
def assemble(outcomes: Sequence[CellOutcome]) -> pl.DataFrame:
    """The tidy table: rows of every cell in grid order, baseline columns filled in."""
    baseline: dict[tuple[int, str], float] = {}
    for outcome in outcomes:
        for row in outcome.rows:
            if row.get("algorithm") in ("original", "majority") and "accuracy" in row:
                baseline[(int(row["fold"]), str(row["classifier"]))] = float(row["accuracy"])
    records = []
    for outcome in outcomes:
        seconds = {f"seconds_{s}": float(outcome.seconds.get(s, 0.0)) for s in STAGES}
        for row in outcome.rows:
            record = {c: row.get(c) for c in COLUMNS}
            for c in _FIGURES:
                if record[c] is None and COLUMNS[c] == pl.Float64:
                    record[c] = math.nan
            base = baseline.get((int(row["fold"]), str(row["classifier"])), math.nan)
            accuracy = float(record["accuracy"] if record["accuracy"] is not None else math.nan)
            record["baseline_accuracy"] = base
            record["accuracy_drop"] = base - accuracy
            record.update(seconds)
            record["status"] = outcome.status
            records.append(record)
    return pl.DataFrame(records, schema=dict(COLUMNS))


def versions() -> dict[str, str]:
    """Versions of anonkit, Python and the libraries a study's figures depend on."""
    out = {"anonkit": __version__, "python": sys.version.split()[0]}
    for package in ("polars", "numpy", "scikit-learn"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:  # pragma: no cover
            out[package] = "not installed"
    return out


def machine() -> dict[str, Any]:
    """Platform, processor and core count of this machine."""
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
    }


def report_settings(config: StudyConfig) -> dict[str, Any]:
    """The settings the HTML report lists."""
    return {
        "dataset": config.name,
        "target": config.target,
        "quasi-identifiers": ", ".join(config.quasi_identifiers or ()),
        "numeric": ", ".join(config.numeric or ()) or "none",
        "k": ", ".join(str(k) for k in config.k_values or ()),
        "algorithms": ", ".join(s.cell for s in config.algorithms or ()),
        "suppression limit": ", ".join(f"{v:g}" for v in config.suppression_limits or ()),
        "classifiers": ", ".join(config.classifiers),
        "folds": config.folds,
        "repeats": config.repeats,
        "tuning": config.tuning,
        "test size": config.test_size if config.folds == 1 else f"1/{config.folds}",
        "seed": config.seed,
    }


def check_outputs(config: StudyConfig, sources: Iterable[object] = ()) -> None:
    """Refuse, before any cell runs, output files that name a file the study reads (its
    dataset, a hierarchy file, or one of ``sources``, such as the configuration file), or
    an output folder that cannot take them (:func:`anonkit.io.write.check_output`).

    Raises
    ------
    OutputIsInputError, OutputLocationError

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> check_outputs(StudyConfig(output=folder), [folder / "study.toml"])
    >>> try:
    ...     check_outputs(StudyConfig(output=folder), [folder / "results.csv"])
    ... except ValueError as err:
    ...     print(type(err).__name__)
    OutputIsInputError
    """
    read: list[object] = list(config.hierarchies.values())
    if config.dataset not in BUILTIN_DATASETS:
        read.append(config.dataset)
    read.extend(sources)
    for name in FILES.values():
        check_output(Path(config.output) / name, read)


def write_outputs(
    config: StudyConfig,
    frame: pl.DataFrame,
    summary: Mapping[str, Any],
    writer: Callable[..., Any] | None,
) -> dict[str, Path]:
    """``results.csv``, ``report.html`` (when ``writer``, the HTML report function, is
    given) and ``study.json``, together (:func:`anonkit.study.staging.staged_files`): each
    is written to a temporary file beside its place, and only when all are complete are
    they renamed into place, with Ctrl-C held for those few renames. An interruption or
    error before then leaves the previous files of the folder as they were, never the new
    results beside an older report."""
    folder = Path(config.output)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"results": folder / FILES["results"], "study": folder / FILES["study"]}
    if writer is not None:
        paths["report"] = folder / FILES["report"]
    payload = {**summary, "files": {name: str(p) for name, p in paths.items()}}
    with staged_files() as stage:
        staged = {name: stage(p) for name, p in paths.items()}
        frame.write_csv(staged["results"])
        if writer is not None:
            writer(
                frame,
                staged["report"],
                title=f"Utility study: {config.name}",
                config_summary=report_settings(config),
                timing={"wall-clock": summary["timing_seconds"]["wall"]},
            )
        text = json.dumps(payload, indent=2, allow_nan=False) + "\n"
        staged["study"].write_text(text, encoding="utf-8")
    return paths
