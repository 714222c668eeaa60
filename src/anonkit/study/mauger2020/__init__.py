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
* :mod:`~anonkit.study.mauger2020.outputs`: the files (:func:`write_outputs`).

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

Run it from the command line (``--output`` writes the SVG, a CSV of every run, and the
results block of ``DIR/mauger2020.md``)::

    anonkit reproduce mauger2020 --workers 2 --output docs/studies

References
----------
C. Mauger, G. Le Mahec, G. Dequen. Modeling and evaluation of k-anonymization metrics.
PPAI workshop at AAAI 2020. hal-03236397.
"""

from __future__ import annotations

from anonkit.study.mauger2020 import paper
from anonkit.study.mauger2020.comparison import AlterationTable, FigureComparison
from anonkit.study.mauger2020.outputs import RESULTS_END, RESULTS_START, write_outputs
from anonkit.study.mauger2020.paper import *  # noqa: F403 (the paper's numbers, named once in paper.__all__)
from anonkit.study.mauger2020.ranks import competition_ranks, spearman
from anonkit.study.mauger2020.results import Reproduction, Run
from anonkit.study.mauger2020.runs import LEAVES_CHOICES, reproduce

__all__ = [
    "LEAVES_CHOICES",
    "RESULTS_END",
    "RESULTS_START",
    "AlterationTable",
    "FigureComparison",
    "Reproduction",
    "Run",
    "competition_ranks",
    "reproduce",
    "spearman",
    "write_outputs",
]
__all__ += paper.__all__
