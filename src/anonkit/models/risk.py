"""Average re-identification risk below a threshold (a table-level privacy model).

Under the prosecutor model a record in a class of size ``f`` is re-identified with
probability ``1/f``; averaged over the ``n`` released records this is
``(1/n) sum_classes f * (1/f) = (released classes) / (released records)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from anonkit._arrays import BoolArray, IntArray
from anonkit._validation import check_real
from anonkit.models._common import NoAttribute, exceeds
from anonkit.models.base import ClassSummary


def average_risk_level(sizes: IntArray) -> float:
    """Average prosecutor risk of classes of ``sizes``: ``len(sizes) / sum(sizes)``.

    0 for an empty release (nothing can be re-identified).

    Examples
    --------
    >>> round(average_risk_level(np.array([4, 4, 5])), 4)
    0.2308
    """
    records = int(np.asarray(sizes).sum())
    return len(sizes) / records if records else 0.0


@dataclass(frozen=True)
class AverageRisk(NoAttribute):
    """The average prosecutor re-identification risk of the release is at most ``threshold``.

    Average risk = released classes / released records (El Emam's "average risk"; ARX
    calls the model "average re-identification risk"). It is a property of the whole table
    (``class_local`` is False), so :meth:`violations` decides which classes to give up:
    when the table meets the threshold no class violates; otherwise the smallest classes
    (ties in index order) are marked, smallest first, until the remaining records meet it
    (possibly all of them). Suppressing whole classes of size ``f < 1/threshold`` lowers the
    risk, and for a given number of suppressed classes the smallest ones suppress the
    fewest records, so this marks the fewest records that can be suppressed to meet the
    threshold. Whether suppressing them is allowed is then the search's suppression limit's
    decision, as for every other model.

    Monotone under generalization without suppression (merging classes lowers the class
    count for the same records) and with suppression: after a generalization, suppressing
    the classes made only of records suppressed before leaves at most as many classes as
    were kept before, holding at least as many records, so the fewest records to suppress
    never grows. The second flag holds for this model alone, and when combined with models
    whose violating classes are also a smallest-first prefix (k-anonymity); the search must
    not assume it for the union of its mask with other models' masks, which can exceed the
    union before generalization. Judging it on the classes the class-local models keep keeps
    the combination monotone.

    Parameters
    ----------
    threshold
        Largest average risk allowed, a real number in (0, 1].

    References
    ----------
    K. El Emam. Guide to the De-Identification of Personal Health Information. CRC Press,
    2013 (average risk); F. Prasser, F. Kohlmayer et al., ARX, 2014-2020.

    Examples
    --------
    >>> AverageRisk(0.25).violations(ClassSummary(np.array([4, 4, 5]), 13)).tolist()
    [False, False, False]
    >>> AverageRisk(0.2).violations(ClassSummary(np.array([1, 4, 6]), 11)).tolist()
    [True, False, False]
    """

    threshold: float

    monotone_generalization: ClassVar[bool] = True
    monotone_suppression: ClassVar[bool] = True
    class_local: ClassVar[bool] = False

    def check_parameters(self, owner: str) -> None:
        check_real(self.threshold, "threshold", owner, low=0, high=1, closed="right")

    def violations(self, classes: ClassSummary) -> BoolArray:
        sizes = np.asarray(classes.sizes, dtype=np.int64)
        n = sizes.shape[0]
        mask = np.zeros(n, dtype=np.bool_)
        if n == 0:
            return mask
        order = np.argsort(sizes, kind="stable")
        # Suppressing the r smallest classes, r = 0..n: kept classes and kept records.
        removed = np.concatenate(([0], np.cumsum(sizes[order])))
        kept_classes = n - np.arange(n + 1)
        kept_records = int(sizes.sum()) - removed
        ok = ~exceeds(kept_classes, float(self.threshold) * kept_records)
        ok[-1] = True  # an empty release has no risk
        r = int(np.argmax(ok))
        mask[order[:r]] = True
        return mask

    def describe(self) -> str:
        return f"average re-identification risk <= {self.threshold:g}"
