"""The greedy class merging estimator and its function form, with the paper's settings."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from anonkit._validation import check_bool, check_choice, check_int
from anonkit.algorithms.greedy_merge.fit import fit_codes
from anonkit.algorithms.greedy_merge.inputs import as_codes
from anonkit.algorithms.greedy_merge.result import GreedyMergeResult
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import EmptyDataError, ParameterError
from anonkit.metrics.cost_matrix import check_cost
from anonkit.progress import Progress

#: 21 requested k from 2 to 15,000, as in the paper's experiments. The paper's text names
#: 2, 50, 100, 500, 750, 1000, 1500, 4000, 5000, 7500, 10,000 and 15,000; the full list is
#: only on its plots' axes, so the other nine values are intermediate steps chosen here.
PAPER_K_VALUES: tuple[int, ...] = (
    2, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000,
    1500, 2000, 2500, 3000, 4000, 5000, 7500, 10000, 12500, 15000,
)  # fmt: skip
#: The paper's nine quasi-identifiers of Adult, in its order (Figure 5).
PAPER_ADULT_COLUMNS: tuple[str, ...] = (
    "age", "sex", "race", "marital-status", "education",
    "native-country", "workclass", "occupation", "salary-class",
)  # fmt: skip
#: Ways to choose ``C_small``.
SMALL_CLASS_CHOICES: tuple[str, ...] = ("first", "smallest", "queue")
#: Ways to list ``C(T)``, the order that chooses ``C_small`` and breaks ties.
ORDER_CHOICES: tuple[str, ...] = ("codes", "random")
#: The most distinct quasi-identifier combinations greedy merging takes: its cost rows
#: take about 75 KB of memory per combination (56,500 took 4.2 GB; benchmarks/RESULTS.md).
MAX_COMBINATIONS = 100_000


class GreedyMerge:
    """Greedy class merging minimizing a cost-matrix function (Mauger et al. 2020).

    Parameters
    ----------
    k
        Requested minimum class size, an int between 1 and the number of records.
    cost
        The function to optimize: one of ``distortion``, ``ncp``, ``total``, ``llm``,
        ``nllm`` (the paper's recommendation), ``wllm``, ``wnllm``.
    small_class
        How ``C_small`` is chosen: ``"first"`` (the paper), ``"smallest"`` or ``"queue"``;
        see the module docstring.
    order
        How ``C(T)`` is listed, which decides both the "first" small class and the ties
        of the merge cost: ``"codes"`` (default: the group-by order of the value codes,
        lexicographic in column order) or ``"random"``: the distinct combinations in the
        order ``numpy.random.default_rng(seed).permutation(n_initial_classes)`` gives
        them. The paper says only that ``C(T)``'s order "is determined by the way the set
        is computed"; a random order stands for any order unrelated to the values (a
        hash set's, for instance), and repeated seeds show how much the release depends
        on that arbitrary choice.
    seed
        Seed of the random order, an int >= 0 (ignored with ``order="codes"``).
    fuse
        When a merge yields the values of another existing class, the two become one
        class (default ``True``; the paper does not say). With ``False`` the run keeps
        them apart and the release joins them at the end (released classes are the sets
        of records with identical values, so k-anonymity holds either way).
    progress
        Called as ``progress(done, total)`` while classes are merged: ``total`` is the
        number of classes smaller than ``k`` at the start, ``done`` those no longer
        small (merged into a class of ``k`` records or more, or into another one).
        Calls come at most every tenth of a second, and once at the end.

    Parameters are stored unchanged and validated by :meth:`fit`.

    References
    ----------
    C. Mauger, G. Le Mahec, G. Dequen. Modeling and evaluation of k-anonymization
    metrics. PPAI workshop at AAAI 2020. hal-03236397.

    Examples
    --------
    >>> import numpy as np
    >>> h = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"], ["d", "C", "*"]])
    >>> result = GreedyMerge(k=2, cost="ncp").fit(np.array([[0, 1, 2, 3, 3]]), [h])
    >>> result.class_labels, result.class_sizes.tolist(), result.effective_k
    ((('A',), ('C',)), [2, 3], 2)
    """

    def __init__(
        self,
        *,
        k: int,
        cost: str = "nllm",
        small_class: str = "first",
        order: str = "codes",
        seed: int = 0,
        fuse: bool = True,
        progress: Progress | None = None,
    ) -> None:
        self.k = k
        self.cost = cost
        self.small_class = small_class
        self.order = order
        self.seed = seed
        self.fuse = fuse
        self.progress = progress

    def _validate(self) -> None:
        check_int(self.k, "k", "GreedyMerge", low=1)
        check_cost(self.cost)
        check_choice(self.small_class, "small_class", "GreedyMerge", SMALL_CLASS_CHOICES)
        check_choice(self.order, "order", "GreedyMerge", ORDER_CHOICES)
        check_int(self.seed, "seed", "GreedyMerge", low=0)
        check_bool(self.fuse, "fuse", "GreedyMerge")

    def fit(
        self,
        data: Any,
        hierarchies: Sequence[Hierarchy] | Mapping[str, Hierarchy | str | Path] | None = None,
    ) -> GreedyMergeResult:
        """Anonymize ``data`` and return the release.

        Parameters
        ----------
        data
            One of: an :class:`~anonkit.core.encoding.EncodedTable` (``hierarchies`` not
            needed); an ``(n_qi, n_records)`` int array of level-0 codes (rows of each
            hierarchy) with ``hierarchies`` a sequence, one per row; or a polars/pandas
            frame with ``hierarchies`` a mapping from quasi-identifier column to
            :class:`Hierarchy` or hierarchy file.

        Raises
        ------
        ParameterError
            For an invalid ``k`` (including ``k`` above the number of records),
            ``small_class``, ``order``, ``seed`` or ``fuse``.
        UnknownNameError
            For an unknown ``cost``.
        DataError
            If codes lie outside their hierarchies or the table is empty.
        """
        t0 = time.perf_counter()
        self._validate()
        columns, hs, codes = as_codes(data, hierarchies)
        n = int(codes.shape[1])
        if n == 0:
            raise EmptyDataError()
        if not hs:
            raise ParameterError(
                "hierarchies", "GreedyMerge.fit", "at least one quasi-identifier", 0
            )
        if self.k > n:
            raise ParameterError("k", "GreedyMerge", f"at most the number of records ({n})", self.k)
        combinations = int(np.unique(codes, axis=1).shape[1])
        if combinations > MAX_COMBINATIONS:
            raise ParameterError(
                "data",
                "GreedyMerge",
                f"a table with at most {MAX_COMBINATIONS:,} distinct quasi-identifier "
                f"combinations (about 75 KB of memory each; use Mondrian or a full-domain "
                f"search for larger ones)",
                f"{combinations:,} combinations",
            )
        return fit_codes(
            codes,
            hs,
            columns,
            int(self.k),
            self.cost,
            self.small_class,
            t0,
            self.progress,
            order=self.order,
            seed=int(self.seed),
            fuse=bool(self.fuse),
        )


def greedy_merge(
    data: Any,
    hierarchies: Sequence[Hierarchy] | Mapping[str, Hierarchy | str | Path] | None = None,
    **params: Any,
) -> GreedyMergeResult:
    """Function form of :class:`GreedyMerge`: ``GreedyMerge(**params).fit(data, hierarchies)``
    (``params``: its keyword parameters ``k``, ``cost``, ``small_class``, ``order``,
    ``seed``, ``fuse`` and ``progress``)."""
    return GreedyMerge(**params).fit(data, hierarchies)
