"""The classes of a node judged in one compiled pass, for t-closeness without suppression.

Without suppression a t-closeness search (issue 19's cells) evaluates a few dozen nodes,
and each evaluation is some forty small array operations: the classes of the rolled-up
detail snapshot, their histograms, the EMD, the verdicts and the convexity bound
(:meth:`.evaluator.Evaluator.classes`, :func:`.convex.judge_classes`). For k-anonymity
with one equal-distance or hierarchical t-closeness model, :func:`._judge_kernel.judge_t`
does all of it in one pass over the snapshot's sorted keys, with the same order of
floating-point operations as :mod:`anonkit.models.t_closeness` for the equal distance
(the hierarchical EMD sums its group deficits in order, where numpy's matrix product
may pair them otherwise: the two differ in the last bits at most). A node whose answer
needs more (the capped bounds, a node the size screens already rule out) goes back to
the general path, which is also the test oracle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import numpy.typing as npt

from anonkit.algorithms.lattice.convex import largest_emd
from anonkit.core.grouping import compiled_ready
from anonkit.core.snapshot import FrequencySnapshot, KeyRadix
from anonkit.models._common import shares, slack
from anonkit.models.base import PrivacyModel, SensitiveColumn
from anonkit.models.judge import SensitiveSource
from anonkit.models.k_anonymity import KAnonymity
from anonkit.models.t_closeness import (
    EqualDistanceTCloseness,
    HierarchicalTCloseness,
    deficit_groups,
    table_shares,
)

if TYPE_CHECKING:
    from anonkit.algorithms.lattice.evaluator import Evaluator

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class Judged(NamedTuple):
    """A node's classes and what the models say of them."""

    classes: FrequencySnapshot  # keyed by the quasi-identifiers alone, sized
    bad: BoolArray  # classes a model rejects
    forced: float  # records suppressed at every finer node (the plain convexity bound)


class CompiledJudge:
    """Judges keyed detail snapshots of one search (see the module's docstring); build it
    with :meth:`for_evaluator`."""

    def __init__(
        self,
        models: Sequence[PrivacyModel],
        source: SensitiveSource,
        q: int,
        radix: KeyRadix,
        classes_radix: KeyRadix,
        doom_below: int,
    ) -> None:
        ks = [int(m.k) for m in models if isinstance(m, KAnonymity)]
        (model,) = [m for m in models if not isinstance(m, KAnonymity)]
        assert isinstance(model, EqualDistanceTCloseness | HierarchicalTCloseness)
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
        self._doom_below = doom_below
        self._t = float(model.t)
        self._slack = float(slack(self._t))
        self._largest = largest_emd(model, column)
        self._qi_shift = radix.shifts[q - 1]
        self._value_shift = radix.shifts[q]
        self._value_mask = (1 << radix.bits[q]) - 1
        self._value_share = np.ascontiguousarray(shares(source.totals), dtype=np.float64)
        none = np.zeros(0, dtype=np.float64)
        self._first_group = self._groups = np.zeros(1, dtype=np.int64)
        if isinstance(model, EqualDistanceTCloseness):
            self._distance = 0
            self._group_share, self._weights = none, none
        else:
            groups, weights = deficit_groups(column, "hierarchical", hierarchy=model.hierarchy)
            # the 0/1 membership as each value's groups, one after another
            values, self._groups = np.nonzero(groups)
            self._first_group = np.concatenate(
                ([0], np.cumsum(np.bincount(values, minlength=groups.shape[0])))
            ).astype(np.int64)
            self._distance = 1
            self._group_share = np.ascontiguousarray(
                table_shares(source.totals, groups), dtype=np.float64
            )
            self._weights = np.ascontiguousarray(weights, dtype=np.float64)

    @classmethod
    def for_evaluator(
        cls, evaluator: Evaluator, radix: KeyRadix | None, classes_radix: KeyRadix | None
    ) -> CompiledJudge | None:
        """The judge of ``evaluator``'s search, whose detail snapshots are keyed by
        ``radix`` and classes by ``classes_radix``, or ``None`` unless its models are
        k-anonymity and one equal-distance or hierarchical t-closeness model, on one
        sensitive attribute, its snapshots are keyed, nothing may be suppressed, and no
        class needs more than one distinct value."""
        models = evaluator.models
        others = [m for m in models if not isinstance(m, KAnonymity)]
        if (
            evaluator.max_suppressed != 0
            or evaluator.implied_distinct.get(0, 1) > 1
            or radix is None
            or classes_radix is None
            or evaluator.table.width == 0
            or len(evaluator.sources) != 1
            or len(others) != 1
            or type(others[0]) not in (EqualDistanceTCloseness, HierarchicalTCloseness)
            or others[0].sensitive_attributes != (evaluator.sources[0].name,)
        ):
            return None
        ks = [int(m.k) for m in models if isinstance(m, KAnonymity)]
        doom_below = max([evaluator.implied_min_size, *ks])
        q = evaluator.table.width
        return cls(models, evaluator.sources[0], q, radix, classes_radix, doom_below)

    def __call__(self, snap: FrequencySnapshot) -> Judged | None:
        """The classes of the keyed detail snapshot ``snap`` judged; ``None`` when the
        compiled kernels are not running, the snapshot is not keyed or holds population
        counts, the size screens rule the node out, or a failing class has no record
        counted yet (the capped bound may add one): the general path answers those."""
        if snap.keys is None or snap.population is not None or not compiled_ready():
            return None
        from anonkit.algorithms.lattice._judge_kernel import judge_t

        n = snap.keys.shape[0]
        keys = np.empty(n, dtype=np.int64)
        sizes = np.empty(n, dtype=np.int64)
        bad = np.empty(n, dtype=np.bool_)
        classes, doomed, suppressed, forced, unsure = judge_t(
            snap.keys,
            snap.counts.astype(np.int64, copy=False),
            self._qi_shift,
            self._value_shift,
            self._value_mask,
            self._k,
            self._doom_below,
            self._distance,
            self._value_share,
            self._first_group,
            self._groups.astype(np.int64, copy=False),
            self._group_share,
            self._weights,
            self._t,
            self._slack,
            self._largest,
            keys,
            sizes,
            bad,
        )
        if doomed > 0 or (unsure and forced <= 0 and self._largest > self._t):
            return None
        levels = snap.levels[: self._q]
        kept = FrequencySnapshot(
            levels, None, sizes[:classes], keys=keys[:classes], radix=self._classes_radix
        )
        return Judged(kept, bad[:classes], float(forced))
