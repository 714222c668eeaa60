"""The classes of a node judged in one compiled pass, for searches without suppression.

Without suppression an ℓ-diversity or t-closeness search (issue 19's cells) evaluates a
few dozen nodes, and each evaluation is some forty small array operations: the classes
of the rolled-up detail snapshot, their histograms, the statistic, the verdicts and the
convexity bound (:meth:`.evaluator.Evaluator.classes`, :func:`.convex.judge_classes`).
For k-anonymity with one distinct, entropy or recursive ℓ-diversity, equal-distance or
hierarchical t-closeness model, :func:`._judge_kernel.judge` does all of it in one pass
over the snapshot's sorted keys, in the order of floating-point operations of
:mod:`anonkit.models` (the hierarchical EMD sums its group deficits in order, where
numpy's matrix product may pair them otherwise: the two differ in the last bits at
most), and reports what the evaluator's size and distinct-value screens would reject. A
node whose answer needs more (a failing class that the capped bounds may charge) goes
back to the general path, which stays the one definition and is the test oracle.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt

from anonkit._arrays import BoolArray, IntArray
from anonkit.algorithms.lattice.convex import largest_emd
from anonkit.core.grouping import compiled_ready
from anonkit.core.snapshot import FrequencySnapshot, KeyRadix
from anonkit.models._common import TOLERANCE, shares
from anonkit.models.base import PrivacyModel, SensitiveColumn
from anonkit.models.judge import SensitiveSource
from anonkit.models.k_anonymity import KAnonymity
from anonkit.models.l_diversity import (
    XLOGX_TABLE,
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
)
from anonkit.models.t_closeness import (
    EqualDistanceTCloseness,
    HierarchicalTCloseness,
    deficit_groups,
    table_shares,
)

#: The models the kernel judges, by its ``kind`` (:mod:`._judge_kernel`).
_KINDS: dict[type, int] = {
    EqualDistanceTCloseness: 0,
    HierarchicalTCloseness: 1,
    DistinctLDiversity: 2,
    EntropyLDiversity: 3,
    RecursiveCLDiversity: 4,
}
if TYPE_CHECKING:
    from anonkit.algorithms.lattice.evaluator import Evaluator


class Judged(NamedTuple):
    """A node's classes and what the models say of them."""

    classes: FrequencySnapshot  # keyed by the quasi-identifiers alone, sized
    bad: BoolArray  # classes a model rejects
    forced: float  # records suppressed at every finer node (the plain convexity bound)
    doomed: float  # records in classes the size and distinct-value screens reject
    settled: bool  # whether ``forced`` is final (no capped bound could raise it)


class CompiledJudge:
    """Judges keyed detail snapshots of one search (see the module's docstring); build it
    with :meth:`for_evaluator`."""

    def __init__(
        self,
        models: Sequence[PrivacyModel],
        source: SensitiveSource,
        n_records: int,
        q: int,
        radix: KeyRadix,
        classes_radix: KeyRadix,
        doom: tuple[int, int],
    ) -> None:
        ks = [int(m.k) for m in models if isinstance(m, KAnonymity)]
        (model,) = [m for m in models if not isinstance(m, KAnonymity)]
        column = SensitiveColumn(
            source.name,
            source.labels,
            np.zeros((0, source.n_values), dtype=np.int64),
            source.totals,
            source.hierarchy,
        )
        self._k = max(ks, default=0)
        self._q = q
        self._classes_radix = classes_radix
        self._doom = doom
        self._kind = _KINDS[type(model)]
        self._qi_shift = radix.shifts[q - 1]
        self._value_shift = radix.shifts[q]
        self._value_mask = (1 << radix.bits[q]) - 1
        self._value_share = np.ascontiguousarray(shares(source.totals), dtype=np.float64)
        none = np.zeros(0, dtype=np.float64)
        self._first_group = self._groups = np.zeros(1, dtype=np.int64)
        self._group_share, self._weights = none, none
        self._bound = self._largest = self._c = 0.0
        self._l = 0
        self._xlogx = self._logs = none
        #: Whether the model has a capped bound (convex.py) a failing class may need.
        self._capped = True
        if isinstance(model, EqualDistanceTCloseness | HierarchicalTCloseness):
            self._bound = float(model.t)
            self._largest = largest_emd(model, column)
            self._capped = self._largest > self._bound
        if isinstance(model, HierarchicalTCloseness):
            groups, weights = deficit_groups(column, "hierarchical", hierarchy=model.hierarchy)
            # the 0/1 membership as each value's groups, one after another
            values, self._groups = np.nonzero(groups)
            self._first_group = np.concatenate(
                ([0], np.cumsum(np.bincount(values, minlength=groups.shape[0])))
            ).astype(np.int64)
            self._group_share = np.ascontiguousarray(
                table_shares(source.totals, groups), dtype=np.float64
            )
            self._weights = np.ascontiguousarray(weights, dtype=np.float64)
        if isinstance(model, DistinctLDiversity):
            self._l = int(model.l)
            self._capped = False
        if isinstance(model, EntropyLDiversity):
            self._bound = math.log(float(model.l))
            self._capped = self._bound > 0
            # the general path's c ln c and ln n, elementwise alike from one table each
            whole = np.arange(n_records + 1, dtype=np.float64)
            self._xlogx = whole.copy()
            self._xlogx[1:] *= np.log(whole[1:])
            self._logs = np.log(np.maximum(whole, 1.0))
        if isinstance(model, RecursiveCLDiversity):
            self._c, self._l = float(model.c), int(model.l)
        #: What the kernels read of the model, in the order of ``_judge_kernel.MODEL``.
        self._model = (
            self._kind,
            self._value_share,
            self._first_group,
            self._groups.astype(np.int64, copy=False),
            self._group_share,
            self._weights,
            self._bound,
            self._largest,
            self._c,
            self._l,
            self._xlogx,
            self._logs,
            TOLERANCE,
        )

    @classmethod
    def for_evaluator(
        cls, evaluator: Evaluator, radix: KeyRadix | None, classes_radix: KeyRadix | None
    ) -> CompiledJudge | None:
        """The judge of ``evaluator``'s search, whose detail snapshots are keyed by
        ``radix`` and classes by ``classes_radix``, or ``None`` unless its models are
        k-anonymity and one model the kernel knows, of the one sensitive attribute, and
        nothing may be suppressed."""
        models = evaluator.models
        others = [m for m in models if not isinstance(m, KAnonymity)]
        table = evaluator.table
        if (
            evaluator.max_suppressed != 0
            or radix is None
            or classes_radix is None
            or table.width == 0
            or len(evaluator.sources) != 1
            or len(others) != 1
            or type(others[0]) not in _KINDS
            or others[0].sensitive_attributes != (evaluator.sources[0].name,)
            or (isinstance(others[0], EntropyLDiversity) and table.n_records > XLOGX_TABLE)
        ):
            return None
        ks = [int(m.k) for m in models if isinstance(m, KAnonymity)]
        doom = (max([evaluator.implied_min_size, *ks]), evaluator.implied_distinct.get(0, 1))
        return cls(
            models, evaluator.sources[0], table.n_records, table.width, radix, classes_radix, doom
        )

    @property
    def screens_pairs(self) -> bool:
        """Whether judging the two-column projections pays before a search: not for
        distinct ℓ-diversity, which a projected class fails only when ℓ records or more
        share fewer than ℓ values (on Adult without suppression no projection of the 108
        nodes the size screens leave open fails it, and the screen would cost about 2 ms
        of a 31 ms call); the other models read the shape of the histograms, which the
        projections' large classes can fail (hierarchical t-closeness: 103 of the 108
        nodes closed)."""
        return self._kind != _KINDS[DistinctLDiversity]

    def pairs_failing(
        self,
        codes: IntArray,
        counts: IntArray,
        level_tables: tuple[IntArray, IntArray, IntArray],
        pairs: IntArray,
        nodes: npt.NDArray[np.signedinteger[Any]],
        open_nodes: BoolArray,
    ) -> IntArray:
        """The open nodes none of whose projections onto ``pairs`` has a class this
        judge rejects (:func:`._judge_kernel.pairs_failing`, whose arguments these are;
        ``level_tables`` is its ``(ups, cards, heights)``). Call only when the compiled
        kernels run."""
        from anonkit.algorithms.lattice._judge_kernel import pairs_failing

        kept: IntArray = pairs_failing(
            codes,
            counts,
            *level_tables,
            pairs,
            nodes,
            open_nodes,
            self._k,
            self._model,
        )
        return kept

    def __call__(self, snap: FrequencySnapshot) -> Judged | None:
        """The classes of the keyed detail snapshot ``snap`` judged, or ``None`` when the
        compiled kernels are not running or the snapshot is not keyed or holds population
        counts. The answer says what the evaluator's own screens would: the records in
        classes the size and distinct-value screens reject, and whether the convexity
        bound is settled (not when a failing class has no record counted yet and the
        capped bound may add one: the general path answers then)."""
        if snap.keys is None or snap.population is not None or not compiled_ready():
            return None
        from anonkit.algorithms.lattice._judge_kernel import judge

        n = snap.keys.shape[0]
        keys = np.empty(n, dtype=np.int64)
        sizes = np.empty(n, dtype=np.int64)
        bad = np.empty(n, dtype=np.bool_)
        classes, doomed, _, forced, unsure = judge(
            snap.keys,
            snap.counts.astype(np.int64, copy=False),
            self._qi_shift,
            self._value_shift,
            self._value_mask,
            self._k,
            *self._doom,
            self._model,
            keys,
            sizes,
            bad,
        )
        levels = snap.levels[: self._q]
        kept = FrequencySnapshot(
            levels, None, sizes[:classes], keys=keys[:classes], radix=self._classes_radix
        )
        # without suppression the capped bounds run only while nothing is forced
        settled = not (unsure and forced <= 0 and self._capped)
        return Judged(kept, bad[:classes], float(forced), float(doomed), settled)
