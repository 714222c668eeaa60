"""Reproduction of Mauger, Le Mahec & Dequen (2020), Figures 6 to 9.

The paper k-anonymizes Adult (30,162 records, nine quasi-identifiers) with a greedy class
merging algorithm (its Algorithm 1, :class:`~anonkit.algorithms.greedy_merge.GreedyMerge`)
that optimizes one of seven cost functions, for 21 requested k from 2 to 15,000. Figures 6,
7 and 8 give, for requested k = 2, 100 and 1500, the *percentage of alteration*
``100 * m(T_o,k) / m(T*)`` of the table optimized with ``o`` under each metric ``m``
(``T*``: every value at its hierarchy's root), with the rank of each optimization per
metric (1 = least altered). Figure 9 plots the *minimum k* (smallest class of the release)
against the requested k.

The package, one concern per module:

* :mod:`~anonkit.study.mauger2020.paper`: the paper's published numbers as data
  (:data:`PAPER_TABLES`, :func:`paper_minimum_k`);
* :mod:`~anonkit.study.mauger2020.ranks`: competition ranks and Spearman's rho;
* :mod:`~anonkit.study.mauger2020.runs`: the grid (:func:`reproduce`, in the study's
  process pool, :func:`anonkit.study.pool.run_in_processes`);
* :mod:`~anonkit.study.mauger2020.results`: what it yields (:class:`Run`,
  :class:`Reproduction`) and :mod:`~anonkit.study.mauger2020.comparison`, our tables
  against the paper's (:class:`AlterationTable`, :class:`FigureComparison`);
* :mod:`~anonkit.study.mauger2020.render` (Markdown) and
  :mod:`~anonkit.study.mauger2020.plots` (the SVG of Figure 9);
* :mod:`~anonkit.study.mauger2020.orders` (the design of the study under many random
  orders of ``C(T)`` and its cached runs), :mod:`~anonkit.study.mauger2020.spread` (each
  claim of the paper checked under every order, spreads, ties, ablations) and
  :mod:`~anonkit.study.mauger2020.study` (:func:`run_study`, :class:`MaugerStudy`: the
  page's answer, results and plots);
* :mod:`~anonkit.study.mauger2020.outputs`: the files (:func:`write_outputs` for one
  grid, :func:`write_study_outputs` for the study).

Conventions:

* Ranks are competition ranks (``1 2 2 4``: ties share the best rank) computed on the
  percentages rounded half-up to whole numbers, the precision the paper prints; the
  paper's tables rank the same way (e.g. Figure 6, row *distortion*: four optimizations
  at 2 % share rank 1, the next is rank 5).
* The "Average" row is the mean of the seven metrics' percentages.
* Rank agreement per metric is Spearman's rho between our whole percentages (the values
  our ranks come from) and the paper's printed ones over the optimizations (ties get
  average ranks; NaN when a row is constant); the *best* optimizations
  of a row are those at rank 1, recomputed from the printed values for the paper, since a
  few printed ranks contradict their own values (:meth:`PaperTable.rank_inconsistencies`).

Run the study from the command line (``--output`` writes the plots, a CSV of every run,
the answer and results blocks of ``DIR/mauger2020.md``, and keeps finished runs in
``DIR/mauger2020/cache``; ``--quick`` runs a few orders only)::

    anonkit reproduce mauger2020 --workers 2 --output docs/studies

References
----------
C. Mauger, G. Le Mahec, G. Dequen. Modeling and evaluation of k-anonymization metrics.
PPAI workshop at AAAI 2020. hal-03236397.
"""

from __future__ import annotations

from anonkit.study.mauger2020 import paper
from anonkit.study.mauger2020.comparison import AlterationTable, FigureComparison
from anonkit.study.mauger2020.orders import FULL, QUICK, VARIANTS, Design
from anonkit.study.mauger2020.outputs import (
    RESULTS_END,
    RESULTS_START,
    write_outputs,
    write_study_outputs,
)
from anonkit.study.mauger2020.paper import *  # noqa: F403 (the paper's numbers, named once in paper.__all__)
from anonkit.study.mauger2020.ranks import competition_ranks, spearman
from anonkit.study.mauger2020.results import Reproduction, Run
from anonkit.study.mauger2020.runs import LEAVES_CHOICES, reproduce
from anonkit.study.mauger2020.study import MaugerStudy, run_study

__all__ = [
    "FULL",
    "LEAVES_CHOICES",
    "QUICK",
    "RESULTS_END",
    "RESULTS_START",
    "VARIANTS",
    "AlterationTable",
    "Design",
    "FigureComparison",
    "MaugerStudy",
    "Reproduction",
    "Run",
    "competition_ranks",
    "reproduce",
    "run_study",
    "spearman",
    "write_outputs",
    "write_study_outputs",
]
__all__ += paper.__all__
