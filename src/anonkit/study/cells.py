"""One cell of a study, computed: anonymize the training part, measure it, score it.

A :class:`CellWorker` holds the data, the splits and the utility setup of one study and
turns a :class:`~anonkit.study.grid.Cell` into a :class:`~anonkit.study.cache.CellOutcome`:
the rows of the tidy table (:data:`anonkit.study.outputs.COLUMNS`) and the seconds per
stage. :func:`run_cells_in_processes` runs cells in the study's process pool
(:func:`anonkit.study.pool.run_in_processes`), one worker per process.

References
----------
C. Mauger, G. Le Mahec, G. Dequen. Modeling and evaluation of k-anonymization metrics.
PPAI workshop at AAAI 2020 (seed 004: the percentage of alteration).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from anonkit._arrays import IntArray
from anonkit._atomic import atomic_write_text
from anonkit._frozen import FrozenDict
from anonkit.algorithms.lattice import LATTICE_ALGORITHMS
from anonkit.api import anonymize
from anonkit.core.transform import all_starred
from anonkit.core.values import encode_column
from anonkit.evaluate import evaluate
from anonkit.exceptions import AnonkitError, DataError, ParameterError
from anonkit.metric_info import LOSS_INFO
from anonkit.metrics.cost_matrix import COST_FUNCTIONS, alteration_percentage
from anonkit.study import ml
from anonkit.study.cache import CellOutcome, decode_value, encode_value
from anonkit.study.config import StudyConfig
from anonkit.study.grid import Cell, StudyData, cell_key, load_study_data, split_indices
from anonkit.study.microaggregation import group_spans, microaggregate
from anonkit.study.pool import run_in_processes
from anonkit.study.recode import recode_test
from anonkit.study.setup import EVALUATIONS, UtilitySetup
from anonkit.study.specs import AlgorithmSpec

if TYPE_CHECKING:
    from anonkit.result import AnonymizationResult

__all__ = ["LOSS_NAMES", "STAGES", "CellWorker", "batches", "run_cells_in_processes"]

#: Loss metrics of :func:`anonkit.evaluate.evaluate`, as ``loss_<name>`` columns.
LOSS_NAMES: tuple[str, ...] = tuple(LOSS_INFO)
#: The timed stages of a cell (wall seconds), as ``seconds_<stage>`` columns, and ``cpu``:
#: the CPU seconds of the whole cell in its process (what it cost, whatever the load).
STAGES: tuple[str, ...] = ("anonymize", "metrics", "utility", "cpu")

#: Losses measured on a microaggregated release's means, not on its groups' ranges.
_ON_MEANS = ("sse", "il")


def _average_risk(n_classes: int, n_records: int, figures: Mapping[str, Any]) -> float:
    """Average prosecutor re-identification risk of a release: the mean over released
    records of 1 / (size of its class), i.e. released classes / released records
    (El Emam 2013); suppressed records are not at risk. A release with no class (every
    record suppressed or fully generalized into one block) has risk 1 / records."""
    kept = n_records * (1.0 - float(figures.get("suppressed_share", 0.0)))
    if n_classes == 0 or kept <= 0:
        return 1.0 / max(n_records, 1)
    return float(n_classes) / kept


def _score_fields(score: ml.UtilityScore) -> dict[str, Any]:
    """The tidy table's columns of one classifier's score on one test set."""
    return {
        "classifier": score.classifier,
        "evaluation": score.evaluation,
        "accuracy": float(score.accuracy),
        "balanced_accuracy": float(score.balanced_accuracy),
        "roc_auc": float(score.roc_auc),
        "single_class": bool(score.single_class),
    }


def _one_sentence(err: BaseException, *, with_type: bool = False) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return f"{type(err).__name__}: {text}" if with_type else text


@dataclass(frozen=True)
class _Fold:
    train: pl.DataFrame
    test: pl.DataFrame


class CellWorker:
    """Computes cells; holds the data, the splits and the utility setup of one study.

    One lives in every worker process (created once by the pool initializer), or in the
    calling process when the study runs with one worker. ``use_cache=False`` (``anonkit
    study --no-cache``) trains on every release again instead of reading the scores of an
    equal release from the study's cache (they are still written there).
    """

    def __init__(
        self, config: StudyConfig, data: StudyData | None = None, *, use_cache: bool = True
    ) -> None:
        self.config = config
        self.use_cache = use_cache
        self.data = data if data is not None else load_study_data(config)
        self.qi = tuple(config.quasi_identifiers or ())
        self.numeric = tuple(config.numeric or ())
        self.target = str(config.target)
        self.splits = split_indices(
            self.data.frame[self.target],
            folds=config.folds,
            test_size=config.test_size,
            seed=config.seed,
            repeats=config.repeats,
        )
        self._scored: dict[str, list[ml.UtilityScore]] = {}
        self._folds: dict[int, _Fold] = {}
        self._leaf_codes: dict[int, IntArray] = {}
        self._setup: UtilitySetup | None = None

    # ---------------------------------------------------------------- shared per fold
    def fold(self, index: int) -> _Fold:
        """The train and test frames of fold ``index`` (sliced once)."""
        if index not in self._folds:
            train, test = self.splits[index]
            frame = self.data.frame
            self._folds[index] = _Fold(frame[train], frame[test])
        return self._folds[index]

    def leaf_codes(self, index: int) -> IntArray:
        """``(n_qi, n_train)``: each training value's leaf in its hierarchy (fold ``index``)."""
        if index not in self._leaf_codes:
            train = self.fold(index).train
            h = self.data.hierarchies
            self._leaf_codes[index] = np.stack(
                [encode_column(train[c], h[c], c).to_numpy().astype(np.int64) for c in self.qi]
            )
        return self._leaf_codes[index]

    @property
    def setup(self) -> UtilitySetup:
        """The :class:`anonkit.study.setup.UtilitySetup` of the study (built once)."""
        if self._setup is None:
            self._setup = UtilitySetup(
                target=self.target,
                quasi_identifiers=self.qi,
                hierarchies=dict(self.data.hierarchies),
                numeric=self.numeric,
                features=tuple(self.config.features),
                classifiers=tuple(self.config.classifiers),
                seed=self.config.seed,
                n_jobs=1,
                tuning=self.config.tuning,
            )
        return self._setup

    def _hierarchies(self, spec: AlgorithmSpec) -> tuple[dict[str, Any], tuple[str, ...]]:
        """Hierarchies and numeric columns the algorithm (and the metrics) read."""
        h = dict(self.data.hierarchies)
        if spec.reads_numbers:
            return {c: v for c, v in h.items() if c not in self.numeric}, self.numeric
        return h, ()

    # ---------------------------------------------------------------- cells
    def run(self, cell: Cell) -> CellOutcome:
        """Compute ``cell``; failures become an outcome with ``status = "error: ..."``."""
        seconds = dict.fromkeys(STAGES, 0.0)
        cpu = time.process_time()
        try:
            if cell.spec is None:
                rows = self._baselines(cell, seconds)
            else:
                rows = self._cell(cell, cell.spec, seconds)
        except AnonkitError as err:  # the inputs cannot make this cell: keep the failure
            seconds["cpu"] = time.process_time() - cpu
            return self._failed(cell, seconds, "error: " + _one_sentence(err), cacheable=True)
        except Exception as err:  # unexpected: report it, retry on the next run
            seconds["cpu"] = time.process_time() - cpu
            message = "error: " + _one_sentence(err, with_type=True)
            return self._failed(cell, seconds, message, cacheable=False)
        seconds["cpu"] = time.process_time() - cpu
        return CellOutcome(tuple(rows), FrozenDict(seconds))

    def _base_row(self, cell: Cell, algorithm: str, variant: str, name: str) -> dict[str, Any]:
        return {
            "dataset": self.config.name,
            "fold": cell.fold,
            "k": cell.k,
            "algorithm": algorithm,
            "variant": variant,
            "cell": name,
            "suppression_limit": cell.suppression if cell.spec is not None else 0.0,
        }

    def _failed(
        self, cell: Cell, seconds: Mapping[str, float], status: str, *, cacheable: bool
    ) -> CellOutcome:
        if cell.spec is None:
            pairs = [("original", c) for c in self.config.classifiers]
            pairs.append(("majority", "majority"))
            rows = [
                {
                    **self._base_row(cell, alg, "", alg),
                    "classifier": clf,
                    "evaluation": "original_test",
                }
                for alg, clf in pairs
            ]
        else:
            spec = cell.spec
            rows = [
                {
                    **self._base_row(cell, spec.algorithm, spec.variant, cell.name),
                    "classifier": clf,
                    "evaluation": ev,
                }
                for clf in self.config.classifiers
                for ev in EVALUATIONS
            ]
        return CellOutcome(
            tuple(rows), FrozenDict(dict(seconds)), status=status, cacheable=cacheable
        )

    def anonymized(self, cell: Cell) -> AnonymizationResult:
        """The anonymization of the training split of ``cell`` (a grid cell).

        Microaggregation releases the categorical quasi-identifiers at the root of their
        hierarchy and microaggregates the numeric ones
        (:func:`anonkit.study.microaggregation.microaggregate`).
        """
        spec = cell.spec
        if spec is None:
            raise ParameterError("cell", "CellWorker.anonymized", "a grid cell", cell.label)
        train = self.fold(cell.fold).train
        if spec.algorithm == "microaggregation":
            return microaggregate(
                train,
                quasi_identifiers=self.qi,
                numeric=self.numeric,
                hierarchies=self.data.hierarchies,
                k=cell.k,
                options=spec.anonymize_options(),
            )
        hierarchies, numeric = self._hierarchies(spec)
        return anonymize(
            train,
            quasi_identifiers=list(self.qi),
            hierarchies=hierarchies,
            k=cell.k,
            algorithm=spec.algorithm,
            suppression_limit=cell.suppression,
            numeric=list(numeric),
            # the release is measured here, never published: the class attribute and the
            # other columns stay, and the leak check (a publishing safeguard) is off
            others="keep",
            leak_check=False,
            **spec.anonymize_options(),
        )

    def _cell(self, cell: Cell, spec: AlgorithmSpec, seconds: dict[str, float]) -> list[Any]:
        fold = self.fold(cell.fold)
        hierarchies, numeric = self._hierarchies(spec)
        t0 = time.perf_counter()
        result = self.anonymized(cell)
        release: pl.DataFrame = result.release
        t1 = time.perf_counter()
        seconds["anonymize"] = t1 - t0
        measure = functools.partial(
            evaluate,
            fold.train,
            quasi_identifiers=list(self.qi),
            hierarchies=hierarchies,
            numeric=list(numeric),
            k=cell.k,
            class_attribute=self.target,
            levels=dict(result.transformation) or None,
        )
        ev = measure(release)
        figures: dict[str, Any] = {
            # every record fully generalized or suppressed: one indistinguishable block
            "effective_k": int(ev.classes.min_size) if ev.classes.n_classes else fold.train.height,
            "n_classes": int(ev.classes.n_classes),
            "suppressed_share": float(ev.suppressed_share),
        }
        losses = ev.loss
        if spec.algorithm == "microaggregation":
            # group means read as their groups' ranges; SSE and IL stay on the means
            spans = group_spans(fold.train, release, quasi_identifiers=self.qi, numeric=numeric)
            losses = {**measure(spans).loss, **{n: ev.loss[n] for n in _ON_MEANS if n in ev.loss}}
        figures.update({f"loss_{n}": float(losses.get(n, math.nan)) for n in LOSS_NAMES})
        figures.update(self._alteration(cell.fold, spec, result, release))
        t2 = time.perf_counter()
        seconds["metrics"] = t2 - t1
        recoded = recode_test(
            self.setup,
            fold.train,
            release,
            fold.test,
            transformation=result.transformation,
            algorithm=result.algorithm,
        )
        figures["uncovered_share"] = float(recoded.uncovered_share)
        figures["average_risk"] = _average_risk(ev.classes.n_classes, release.height, figures)
        figures["max_risk"] = 1.0 / figures["effective_k"] if figures["effective_k"] else math.nan
        same = self._release_key(cell.fold, result.algorithm, result.transformation, release)
        scores = self._scored_release(same)
        figures["release_id"] = same[:16]
        if scores is None:
            scores = ml.utility_scores(self.setup, fold.train, release, fold.test, recoded=recoded)
            self._store_scores(same, scores)
        seconds["utility"] = time.perf_counter() - t2
        base = self._base_row(cell, spec.algorithm, spec.variant, cell.name)
        return [{**base, **_score_fields(score), **figures} for score in scores]

    def _release_key(
        self,
        fold: int,
        algorithm: str,
        transformation: Mapping[str, int],
        release: pl.DataFrame,
    ) -> str:
        """A hash of a release and what recoding the test split reads (its split, the
        algorithm family and the full-domain transformation): equal keys score equally,
        so a release already scored in this process (Incognito's optimum equal to
        Flash's, a suppression limit that suppresses nothing more) is not trained again."""
        digest = hashlib.sha256()
        # the study's settings that change a score (data, split, classifiers, tuning)
        digest.update(cell_key(Cell(fold, 1, None), self.config, self.data.fingerprint).encode())
        family = "full-domain" if algorithm in LATTICE_ALGORITHMS else algorithm
        digest.update(repr((fold, family, sorted(transformation.items()))).encode())
        digest.update(release.select(list(self.qi)).write_csv().encode())
        return digest.hexdigest()

    def _scores_path(self, key: str) -> Path:
        return Path(self.config.cache_folder) / "releases" / f"{key}.json"

    def _scored_release(self, key: str) -> list[ml.UtilityScore] | None:
        """Scores of a release already trained on (this process, or the study's cache)."""
        if key in self._scored:
            return self._scored[key]
        path = self._scores_path(key)
        if not self.use_cache or not path.is_file():
            return None
        try:
            rows = json.loads(path.read_text(encoding="utf-8"))
            scores = [ml.UtilityScore(**{k: decode_value(v) for k, v in r.items()}) for r in rows]
        except (OSError, ValueError, TypeError):
            return None
        self._scored[key] = scores
        return scores

    def _store_scores(self, key: str, scores: list[ml.UtilityScore]) -> None:
        self._scored[key] = scores
        rows = [{k: encode_value(v) for k, v in asdict(s).items()} for s in scores]
        atomic_write_text(self._scores_path(key), json.dumps(rows, allow_nan=False))

    def _alteration(
        self,
        fold: int,
        spec: AlgorithmSpec,
        result: AnonymizationResult,
        release: pl.DataFrame,
    ) -> dict[str, float]:
        """Percentage of alteration under the 7 costs (Mauger et al. 2020, Figures 6-8).

        Defined where every released cell is a node of its hierarchy: full-domain
        releases (one level per attribute; suppressed records at the root) and greedy
        merging (which measures it itself). Mondrian ranges and microaggregated means are
        not hierarchy nodes: NaN.
        """
        if spec.algorithm == "greedy_merge":
            return {
                f"alteration_{c}": float(result.metrics.get(f"alteration_{c}", math.nan))
                for c in COST_FUNCTIONS
            }
        if not spec.is_full_domain:
            return {f"alteration_{c}": math.nan for c in COST_FUNCTIONS}
        hierarchies = [self.data.hierarchies[c] for c in self.qi]
        leaves = self.leaf_codes(fold)
        levels = np.repeat(
            np.array([[result.transformation[c]] for c in self.qi], dtype=np.int64),
            leaves.shape[1],
            axis=1,
        )
        star = release.select(all_starred(self.qi)).to_series()
        suppressed = star.to_numpy().astype(bool)
        if suppressed.any():
            tops = np.array([h.max_level for h in hierarchies], dtype=np.int64)
            levels[:, suppressed] = tops[:, None]
        return {
            f"alteration_{c}": alteration_percentage(leaves, levels, hierarchies, cost=c)
            for c in COST_FUNCTIONS
        }

    def _baselines(self, cell: Cell, seconds: dict[str, float]) -> list[Any]:
        fold = self.fold(cell.fold)
        t0 = time.perf_counter()
        # the original table measured as its own release: the loss of publishing it as is
        ev = evaluate(
            fold.train,
            fold.train,
            quasi_identifiers=list(self.qi),
            hierarchies=dict(self.data.hierarchies),
            k=1,
            class_attribute=self.target,
        )
        original: dict[str, Any] = {
            "effective_k": int(ev.classes.min_size),
            "n_classes": int(ev.classes.n_classes),
            "suppressed_share": 0.0,
            "uncovered_share": 0.0,
            "average_risk": float(ev.classes.n_classes) / max(fold.train.height, 1),
            "max_risk": 1.0 / max(int(ev.classes.min_size), 1),
            **{f"loss_{n}": float(ev.loss.get(n, math.nan)) for n in LOSS_NAMES},
            **{f"alteration_{c}": 0.0 for c in COST_FUNCTIONS},
        }
        t1 = time.perf_counter()
        seconds["metrics"] = t1 - t0
        scores = ml.baseline_scores(self.setup, fold.train, fold.test)
        seconds["utility"] = time.perf_counter() - t1
        rows = []
        for score in scores:
            algorithm = "majority" if score.classifier == "majority" else "original"
            figures = original if algorithm == "original" else {}
            base = self._base_row(cell, algorithm, "", algorithm)
            rows.append({**base, **_score_fields(score), **figures})
        return rows


# ------------------------------------------------------------------------------ pool
_WORKER: CellWorker | None = None
#: Why the pool initializer could not build :data:`_WORKER`: raised by every task.
_START_ERROR: Exception | None = None


def _init_worker(config: StudyConfig, fingerprint: str, use_cache: bool = True) -> None:
    """Pool initializer: load the data and split it once per process.

    An error is kept and raised by the process's tasks, so that it reaches the caller as
    itself: raised here, it would break the pool (``BrokenProcessPool``, a traceback per
    worker) and be lost.
    """
    global _WORKER, _START_ERROR
    _WORKER, _START_ERROR = None, None
    try:
        worker = CellWorker(config, use_cache=use_cache)
        if worker.data.fingerprint != fingerprint:
            raise DataError("The study's dataset changed while the study was starting.")
    except Exception as err:
        _START_ERROR = err
        return
    _WORKER = worker


def _run_in_worker(batch: tuple[Cell, ...]) -> tuple[CellOutcome, ...]:
    if _START_ERROR is not None:
        raise _START_ERROR
    assert _WORKER is not None, "the pool initializer did not run"
    return tuple(_WORKER.run(cell) for cell in batch)


def batches(cells: Sequence[Cell], todo: Sequence[int]) -> list[list[int]]:
    """``todo`` cut into runs of cells that share their split and requested k.

    Examples
    --------
    >>> spec = AlgorithmSpec("flash")
    >>> cells = [Cell(0, 1, None), Cell(0, 2, spec), Cell(0, 2, spec, 0.05), Cell(0, 5, spec)]
    >>> batches(cells, [0, 1, 2, 3])
    [[0], [1, 2], [3]]
    """
    out: list[list[int]] = []
    for i in todo:
        c = cells[i]
        if out:
            head = cells[out[-1][0]]
            if (head.fold, head.k, head.is_baseline) == (c.fold, c.k, c.is_baseline):
                out[-1].append(i)
                continue
        out.append([i])
    return out


def run_cells_in_processes(
    config: StudyConfig,
    fingerprint: str,
    cells: Sequence[Cell],
    todo: Sequence[int],
    workers: int,
    finished: Callable[[int, CellOutcome], None],
    *,
    use_cache: bool = True,
) -> None:
    """Compute ``cells[i]`` for every ``i`` in ``todo`` in ``workers`` processes.

    Each process builds one :class:`CellWorker` (checking that the data still has
    ``fingerprint``; ``use_cache`` as there); ``finished(i, outcome)`` runs in this
    process as each cell ends.
    The cells of one split and requested k go to one process as one task
    (:func:`batches`): a release that several settings share (a suppression limit that
    suppresses nothing more, Incognito's optimum, which is Flash's) is then trained once
    and read from that process's memory by the others, where single cells handed out in
    turn would often train it in both processes at the same time.
    """
    groups = batches(cells, todo)

    def done(j: int, outcomes: tuple[CellOutcome, ...]) -> None:
        for i, outcome in zip(groups[j], outcomes, strict=True):
            finished(i, outcome)

    run_in_processes(
        _run_in_worker,
        [tuple(cells[i] for i in group) for group in groups],
        done,
        workers=workers,
        initializer=_init_worker,
        initargs=(config, fingerprint, use_cache),
    )
