"""Utility studies: does an information-loss metric predict machine-learning utility?

Grid runner, machine-learning utility, analysis and the reproduction of Mauger et al.
(2020). See ``docs/studies/``.

* :class:`StudyConfig` and :func:`run_study` (``anonkit study CONFIG.toml``): a grid of
  requested k times algorithm settings, every cell anonymized, measured and scored, in
  parallel and cached, into one tidy table (:data:`RESULT_COLUMNS`);
* :func:`utility_scores` and :func:`baseline_scores`: classifiers trained on a release and
  tested on held-out data (seed 000's question);
* :func:`load_results`, :func:`correlations`, :func:`rank_metrics` and
  :func:`write_study_report`: which metric tracks accuracy, with confidence intervals;
* :func:`within_k`, :func:`partial_correlations`, :func:`metric_differences`,
  :func:`regret` and :func:`frontier` (:mod:`anonkit.study.inference`): the statistics of
  repeated-split studies (issue 21), degenerate cells kept apart by :func:`release_rows`;
* :func:`cached_results`: a study's finished cells, while it runs or after it was cut;
* :func:`reproduce`: the tables of Mauger et al. (2020), Figures 6-9 (seed 004).

The names are imported on first use, so ``import anonkit.study`` stays light (scikit-learn
and the plotting libraries load only when a study needs them).

Examples
--------
>>> from anonkit.study import StudyConfig
>>> [s.cell for s in StudyConfig(k_values=[2]).algorithms][:2]
['flash:loss', 'mondrian:strict']
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anonkit.study.analysis import correlations, load_results, rank_metrics
    from anonkit.study.config import StudyConfig
    from anonkit.study.grid import NoHierarchyWarning
    from anonkit.study.inference import (
        frontier,
        metric_differences,
        partial_correlations,
        regret,
        release_rows,
        within_k,
    )
    from anonkit.study.mauger2020 import reproduce
    from anonkit.study.ml import UtilityScore, baseline_scores, utility_scores
    from anonkit.study.recode import recode_test
    from anonkit.study.report import render_study_report, write_study_report
    from anonkit.study.runner import COLUMNS as RESULT_COLUMNS
    from anonkit.study.runner import StudyResult, cached_results, run_study
    from anonkit.study.setup import CLASSIFIERS, UtilitySetup
    from anonkit.study.specs import AlgorithmSpec

#: Public name -> (module, attribute).
_EXPORTS: dict[str, tuple[str, str]] = {
    "AlgorithmSpec": ("specs", "AlgorithmSpec"),
    "StudyConfig": ("config", "StudyConfig"),
    "NoHierarchyWarning": ("grid", "NoHierarchyWarning"),
    "StudyResult": ("runner", "StudyResult"),
    "RESULT_COLUMNS": ("runner", "COLUMNS"),
    "run_study": ("runner", "run_study"),
    "cached_results": ("runner", "cached_results"),
    "within_k": ("inference", "within_k"),
    "partial_correlations": ("inference", "partial_correlations"),
    "metric_differences": ("inference", "metric_differences"),
    "regret": ("inference", "regret"),
    "frontier": ("inference", "frontier"),
    "release_rows": ("inference", "release_rows"),
    "CLASSIFIERS": ("setup", "CLASSIFIERS"),
    "UtilityScore": ("ml", "UtilityScore"),
    "UtilitySetup": ("setup", "UtilitySetup"),
    "baseline_scores": ("ml", "baseline_scores"),
    "utility_scores": ("ml", "utility_scores"),
    "recode_test": ("recode", "recode_test"),
    "correlations": ("analysis", "correlations"),
    "load_results": ("analysis", "load_results"),
    "rank_metrics": ("analysis", "rank_metrics"),
    "render_study_report": ("report", "render_study_report"),
    "write_study_report": ("report", "write_study_report"),
    "reproduce": ("mauger2020", "reproduce"),
}

__all__ = [
    "CLASSIFIERS",
    "RESULT_COLUMNS",
    "AlgorithmSpec",
    "NoHierarchyWarning",
    "StudyConfig",
    "StudyResult",
    "UtilityScore",
    "UtilitySetup",
    "baseline_scores",
    "cached_results",
    "correlations",
    "frontier",
    "load_results",
    "metric_differences",
    "partial_correlations",
    "rank_metrics",
    "recode_test",
    "regret",
    "release_rows",
    "render_study_report",
    "reproduce",
    "run_study",
    "utility_scores",
    "within_k",
    "write_study_report",
]


def __getattr__(name: str) -> Any:
    """Import an exported name from its module on first use (PEP 562)."""
    try:
        module, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'anonkit.study' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"anonkit.study.{module}"), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
