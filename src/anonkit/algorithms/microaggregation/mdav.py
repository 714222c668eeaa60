"""MDAV: Maximum Distance to Average Vector microaggregation.

The fixed-size multivariate heuristic of Domingo-Ferrer & Mateo-Sanz (2002), as stated
(and named MDAV) by Domingo-Ferrer & Torra (2005). With ``R`` the records not yet grouped:

1. while ``|R| >= 3k``: compute the centroid ``c`` of ``R``; let ``r`` be the record of
   ``R`` farthest from ``c`` and ``s`` the record farthest from ``r``; form a group of
   ``r`` and its ``k - 1`` nearest records in ``R``, remove it; form a group of ``s`` and
   its ``k - 1`` nearest among the records left, remove it;
2. if ``2k <= |R| < 3k``: ``r`` is the record farthest from the centroid of ``R``; form a
   group of ``r`` and its ``k - 1`` nearest records; the rest form the last group;
3. otherwise (``k <= |R| < 2k``) the records left form the last group.

Every group has ``k`` records except the last, which has between ``k`` and ``2k - 1``.
Distances are Euclidean, on attributes standardized to zero mean and unit (population,
``ddof=0``) variance unless told otherwise.

Ties and determinism
--------------------
Distances are compared exactly as computed by the direct formula
``sum_j (x_j - y_j) ** 2`` (attributes summed in column order, float64). Among equal
distances the record with the lowest index (row number) wins: for ``r``, for ``s``, and
for the ``k - 1`` nearest records. ``s`` is the record farthest from ``r`` among those not
put into ``r``'s group; this equals the textbook's choice whenever it is well defined (it
only differs when the farthest record ties with ``r``'s ``(k - 1)``-th nearest, where the
textbook would put ``s`` in two groups). The centroid of ``R`` is kept as a running sum,
recomputed from the records whenever the working arrays are compacted; on integer data
(unstandardized) it is exact, otherwise it may differ from a freshly summed mean in the
last bits, which can only matter for distances that agree to about 1e-15.

Speed
-----
The naive loop costs ``O(n^2 p / k)``: each step scans all remaining records. This
implementation keeps the scans but makes them cheap. Distances from a query point ``q``
are first *scored* for every remaining record with one matrix product,
``|x|^2 - 2 x.q`` (``|x|^2`` precomputed; float32 on large inputs), and the exact direct
formula is then evaluated only for the few records whose score lies within a rigorous
rounding-error bound of the decision (the maximum, or the ``(k - 1)``-th smallest score,
itself bounded from above by the same order statistic of a strided subsample). Grouped
records stay in the arrays with an out-of-reach score until an eighth of the arrays is
grouped, then the arrays are compacted (keeping record order). Small inputs (at most 256
records) use the exact formula throughout. The groups are those of the naive loop with the
direct formula; the tests check this on tie-heavy data for every code path. The products
are small and many, so BLAS is kept to one thread while MDAV runs (when threadpoolctl is
installed): its threads do not help here and cost ten times more on a busy machine.
Measured: EIA (4,092 x 11) in about 0.15 s of CPU at k = 3, 100,000 x 6 in about 22 s
(see ``benchmarks/microaggregation_casc.py``).

References
----------
J. Domingo-Ferrer and J. M. Mateo-Sanz. Practical data-oriented microaggregation for
statistical disclosure control. IEEE TKDE 14(1):189-201, 2002.

J. Domingo-Ferrer and V. Torra. Ordinal, continuous and heterogeneous k-anonymity through
microaggregation. Data Mining and Knowledge Discovery 11(2):195-212, 2005.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit.algorithms._ticker import Ticker
from anonkit.algorithms.microaggregation.loss import as_table, standardize
from anonkit.progress import Progress

#: Up to this many records (live + not yet compacted) every distance is computed exactly.
_SMALL = 256
#: From this many records on, scores are computed in float32 (half the memory traffic).
_FLOAT32_FROM = 16384
#: From this many records on, BLAS is limited to one thread while MDAV runs.
_ONE_BLAS_THREAD_FROM = 2048
#: Compact the arrays when more than 1/_COMPACT of their records are grouped.
_COMPACT = 8


#: Distance scores: float64, or float32 on large inputs.
ScoreArray = npt.NDArray[np.floating[Any]]


def mdav_groups(
    data: npt.ArrayLike, k: int, *, standardize: bool = True, progress: Progress | None = None
) -> IntArray:
    """Partition the records with MDAV; return the group id of each record.

    Groups are numbered in the order MDAV forms them (``0`` is the group of the first
    ``r``). See the module docstring for the algorithm, tie-breaking and speed.

    Parameters
    ----------
    data
        ``(n_records, n_attributes)`` numeric table without missing values.
    k
        Minimum group size, ``1 <= k <= n_records`` (not validated here; the
        :class:`~anonkit.algorithms.microaggregation.Microaggregation` class validates).
    standardize
        Standardize the attributes (zero mean, unit population variance) before measuring
        distances, as in the literature. ``False`` uses the values as given.
    progress
        Called as ``progress(groups formed, n_records // k)`` (MDAV forms exactly
        ``n_records // k`` groups) at most every tenth of a second, and at the end.

    Returns
    -------
    numpy.ndarray
        int64 group id per record, ``0 .. n_groups - 1``.

    Examples
    --------
    >>> x = [[0, 0], [0, 1], [1, 0], [10, 10], [10, 11], [11, 10], [20, 0], [20, 1], [21, 0]]
    >>> mdav_groups(x, 3, standardize=False).tolist()
    [1, 1, 1, 2, 2, 2, 0, 0, 0]
    """
    table = as_table(data, "mdav")
    z = _standardize(table) if standardize else table
    if z.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    ticker = Ticker(progress, z.shape[0] // k)
    with _one_blas_thread(z.shape[0] >= _ONE_BLAS_THREAD_FROM):
        groups = _Mdav(z, k).run(ticker)
    ticker.finish()
    return groups


@contextlib.contextmanager
def _one_blas_thread(wanted: bool) -> Iterator[None]:
    """Limit BLAS to one thread, if asked and threadpoolctl is installed.

    MDAV's matrix products are small and follow each other thousands of times; BLAS
    threads do not speed them up, and on a busy machine they slow them down tenfold.
    threadpoolctl comes with scikit-learn (the ``study`` extra); without it the BLAS
    library's own setting applies.
    """
    if not wanted:
        yield
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - depends on the environment
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def _standardize(table: FloatArray) -> FloatArray:
    return standardize(table)


def exact_sq_distances(zt: FloatArray, q: FloatArray) -> FloatArray:
    """Squared distances of the columns of ``zt`` (``(p, m)``) to ``q``, by the direct formula.

    ``sum_j (zt[j] - q[j]) ** 2`` accumulated in column order (``np.add.accumulate`` is
    sequential by definition); the reference arithmetic every MDAV decision is based on.
    """
    if zt.shape[0] == 0:
        return np.zeros(zt.shape[1], dtype=np.float64)
    diff = zt - q[:, None]
    np.multiply(diff, diff, out=diff)
    result: FloatArray = np.add.accumulate(diff, axis=0)[-1]
    return result


def _nonzero(mask: npt.NDArray[np.bool_]) -> IntArray:
    result: IntArray = mask.nonzero()[0]
    return result


class _Mdav:
    """Working state of one MDAV run.

    The live records are the columns of ``zt`` (``(p, m)``, float64, exact values) and of
    the score matrix ``work`` (``(p + 2, m)``): the ``p`` attributes, then the squared norm
    twice, as the "nearest" row (``+big`` once a record is grouped) and the "farthest" row
    (``-big`` once grouped). One product ``coef @ work`` with ``coef = [-2 q, 1, 0]`` (or
    ``[-2 q, 0, 1]``) gives, for every record, the score ``|x|^2 - 2 x.q``: its squared
    distance to ``q`` up to the constant ``|q|^2``, with grouped records out of reach.
    ``big`` is finite so that ``0 * big == 0``. On large inputs ``work`` is float32: the
    error bound below accounts for it, and the exact formula settles every close call.
    """

    def __init__(
        self, z: FloatArray, k: int, small: int = _SMALL, float32_from: int = _FLOAT32_FROM
    ) -> None:
        self.k = k
        self.small = small
        self.float32_from = float32_from
        self.n, self.p = z.shape
        self.groups = np.full(self.n, -1, dtype=np.int64)
        self.next_group = 0
        self._load(z.T, np.arange(self.n, dtype=np.int64))

    # -- state -----------------------------------------------------------------------------
    def _load(self, zt: FloatArray, index: IntArray) -> None:
        """(Re)build the arrays from live records only (``zt`` columns, original ``index``)."""
        p, size = self.p, index.size
        self.zt = np.ascontiguousarray(zt, dtype=np.float64)
        norms = np.einsum("ij,ij->j", self.zt, self.zt)
        # Every query point (a record or a centroid) has |q|^2 <= max_norm.
        self.max_norm = float(norms.max()) if size else 0.0
        self.index = index  # original record index of each column, increasing
        self.live = np.ones(size, dtype=np.bool_)
        self.m = size  # live records
        self.total = self.zt.sum(axis=1)  # running sum of the live records
        self.exact_mode = size <= self.small
        single = size >= self.float32_from and 1e-20 < self.max_norm < 1e25
        dtype = np.float32 if single else np.float64
        self.big = 1e30 if single else 1e300
        self.eps = float(np.finfo(dtype).eps)
        if not self.exact_mode:
            self.work: ScoreArray = np.empty((p + 2, size), dtype=dtype)
            self.work[:p] = self.zt
            self.work[p] = norms
            self.work[p + 1] = norms

    def _remove(self, positions: IntArray) -> None:
        self.groups[self.index[positions]] = self.next_group
        self.next_group += 1
        self.live[positions] = False
        if not self.exact_mode:
            self.work[self.p, positions] = self.big
            self.work[self.p + 1, positions] = -self.big
        self.total -= self.zt[:, positions].sum(axis=1)
        self.m -= positions.size

    def _maybe_compact(self) -> None:
        if (self.live.size - self.m) * _COMPACT > self.live.size:
            keep = _nonzero(self.live)
            self._load(self.zt[:, keep], self.index[keep])

    def _centroid(self) -> FloatArray:
        result: FloatArray = self.total / self.m
        return result

    # -- queries ---------------------------------------------------------------------------
    def _scores(self, q: FloatArray, near: bool, far: bool) -> tuple[ScoreArray, float]:
        """Distance scores of every record to ``q`` and their error bound.

        Returns a ``(near + far, m)`` array: the "nearest" scores (grouped records at
        ``+big``) if ``near``, then the "farthest" scores (grouped at ``-big``) if ``far``.
        In exact mode the scores are the exact squared distances and the bound is 0;
        otherwise ``|x|^2 - 2 x.q``, within ``tol`` of the exact distance minus ``|q|^2``.
        """
        rows = int(near) + int(far)
        if self.exact_mode:
            exact = exact_sq_distances(self.zt, q)
            out = np.empty((rows, exact.size), dtype=np.float64)
            if near:
                out[0] = np.where(self.live, exact, self.big)
            if far:
                out[rows - 1] = np.where(self.live, exact, -self.big)
            return out, 0.0
        coef = np.zeros((rows, self.p + 2), dtype=self.work.dtype)
        coef[:, : self.p] = -2.0 * q
        if near:
            coef[0, self.p] = 1.0
        if far:
            coef[rows - 1, self.p + 1] = 1.0
        # Rounding of the inputs to the work precision and of the (p + 1)-term products
        # stays below (p + 4) eps (|x|^2 + |q|^2); the exact formula's error is far
        # smaller. A factor 8 on top; the last term covers float32 underflow.
        tol = 8.0 * (self.p + 4) * self.eps * (self.max_norm + float(q @ q)) + 1e-30
        # float32 scores are compared with float64 bounds as they are: rounding a bound
        # to float32 moves it by far less than the factor 8 of ``tol`` allows.
        scores: ScoreArray = np.matmul(coef, self.work)
        return scores, tol

    def _farthest(self, q: FloatArray, scores: ScoreArray, tol: float) -> int:
        """Position of the live record farthest from ``q`` (lowest position on ties)."""
        best = int(scores.argmax())
        top = float(scores[best])
        floor = top - 2.0 * tol
        scores[best] = -self.big
        runner_up = float(scores.max())
        scores[best] = top
        if runner_up < floor:  # no other record within the error bound: no tie possible
            return best
        cand = _nonzero(scores >= floor)
        exact = exact_sq_distances(self.zt[:, cand], q)
        return int(cand[_nonzero(exact == exact.max())[0]])

    def _nearest(self, center: int, scores: ScoreArray, tol: float) -> IntArray:
        """``center`` and the ``k - 1`` live records nearest to it (lowest positions on ties)."""
        need = self.k - 1
        if need == 0:
            return np.array([center], dtype=np.int64)
        scores[center] = self.big
        half = 0.5 * self.big
        # The need-th smallest score of any subset bounds the need-th smallest of all.
        stride = max(1, scores.size // (256 * self.k))
        sample = scores[::stride]
        if np.count_nonzero(sample < half) >= need:
            bound = float(np.partition(sample, need - 1)[need - 1]) + 2.0 * tol
            cand = _nonzero(scores <= bound)
        else:
            cand = _nonzero(scores < half)
        if cand.size > need:
            values = scores[cand]
            order = np.argsort(values, kind="stable")
            if values[order[need]] - values[order[need - 1]] > 2.0 * tol:
                # The scores separate the need nearest from the rest by more than the
                # error bound, so the exact distances select the same records.
                cand = cand[order[:need]]
            else:
                exact = exact_sq_distances(self.zt[:, cand], self.zt[:, center])
                cand = cand[np.lexsort((cand, exact))[:need]]
        return np.concatenate(([center], cand))

    # -- the algorithm ---------------------------------------------------------------------
    def run(self, ticker: Ticker | None = None) -> IntArray:
        k = self.k
        while self.m >= 3 * k:
            if ticker is not None:
                ticker(self.next_group)
            centroid = self._centroid()
            scores, tol = self._scores(centroid, near=False, far=True)
            r = self._farthest(centroid, scores[0], tol)
            point_r = self.zt[:, r].copy()
            scores, tol = self._scores(point_r, near=True, far=True)
            group_r = self._nearest(r, scores[0], tol)
            far = scores[1]
            far[group_r] = -self.big
            s = self._farthest(point_r, far, tol)
            self._remove(group_r)
            scores, tol = self._scores(self.zt[:, s].copy(), near=True, far=False)
            self._remove(self._nearest(s, scores[0], tol))
            self._maybe_compact()
        if self.m >= 2 * k:
            centroid = self._centroid()
            scores, tol = self._scores(centroid, near=False, far=True)
            r = self._farthest(centroid, scores[0], tol)
            scores, tol = self._scores(self.zt[:, r].copy(), near=True, far=False)
            self._remove(self._nearest(r, scores[0], tol))
        if self.m > 0:
            self._remove(_nonzero(self.live))
        return self.groups
