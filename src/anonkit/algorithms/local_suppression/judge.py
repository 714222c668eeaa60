"""The judge of local suppression: the privacy models on unions of current classes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonkit._arrays import BoolArray, IntArray
from anonkit.algorithms.local_suppression.checks import SensitiveSpec, sensitive_names
from anonkit.models.base import PrivacyModel
from anonkit.models.judge import (
    SensitiveSource,
    class_histograms,
    summarize_classes,
    value_totals,
    violations,
)
from anonkit.models.k_anonymity import split_k_anonymity

#: Histogram cells (classes x sensitive values) built at once when judging.
_CHUNK_CELLS = 1 << 21


class Judge:
    """Evaluate the models on classes formed as unions of current classes."""

    def __init__(
        self,
        models: Sequence[PrivacyModel],
        sensitive: Sequence[SensitiveSpec],
        weights: IntArray,
        n_records: int,
    ) -> None:
        self.models = list(models)
        self.weights = weights
        self.n_records = n_records
        needed = set(sensitive_names(models))
        self.sensitive = [s for s in sensitive if s[0] in needed]
        #: The sensitive attributes with their table totals, for the class summaries.
        self.sources = [
            SensitiveSource(name, labels, value_totals(codes, nv, weights), hierarchy)
            for name, codes, nv, labels, hierarchy in self.sensitive
        ]
        k, _ = split_k_anonymity(models)
        self.min_size = k if k is not None else 1
        widest = max([s[2] for s in self.sensitive], default=1)
        self.chunk = max(1, _CHUNK_CELLS // widest)
        empty = np.zeros(0, dtype=np.int64)
        # the current classes, set by set_classes()
        self.sizes = self.row_order = self.class_start = self.rows_per_class = empty

    def set_classes(self, class_of_row: IntArray, n_classes: int) -> None:
        """Remember the current classes (rows sorted by class, for expansion)."""
        self.sizes = np.bincount(class_of_row, weights=self.weights, minlength=n_classes).astype(
            np.int64
        )
        self.row_order = np.argsort(class_of_row, kind="stable").astype(np.int64)
        rows_per_class = np.bincount(class_of_row, minlength=n_classes)
        self.class_start = np.r_[0, np.cumsum(rows_per_class)[:-1]].astype(np.int64)
        self.rows_per_class = rows_per_class.astype(np.int64)

    def _violations(self, sizes: IntArray, hists: Sequence[IntArray]) -> BoolArray:
        summary = summarize_classes(sizes, self.n_records, self.sources, hists)
        return violations(self.models, summary)

    def violations(self) -> BoolArray:
        """Which current classes violate a model."""
        n = self.sizes.shape[0]
        return ~self.judge(np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int64), n)

    def judge(self, item_group: IntArray, item_class: IntArray, n_groups: int) -> BoolArray:
        """Whether each group (the union of the classes of its items) satisfies the models."""
        sizes = np.bincount(item_group, weights=self.sizes[item_class], minlength=n_groups).astype(
            np.int64
        )
        ok = sizes >= self.min_size
        todo = np.flatnonzero(ok)
        if not todo.size:
            return ok
        if not self.sensitive:
            ok[todo] = ~self._violations(sizes[todo], [])
            return ok
        local = np.full(n_groups, -1, dtype=np.int64)
        for lo in range(0, todo.size, self.chunk):
            part = todo[lo : lo + self.chunk]
            local[part] = np.arange(part.size)
            sel = local[item_group] >= 0
            rows, owner = self._expand(item_class[sel])
            slot = local[item_group[sel]][owner]
            hists = [
                class_histograms(slot, codes[rows], part.size, nv, self.weights[rows])
                for _, codes, nv, _, _ in self.sensitive
            ]
            ok[part] = ~self._violations(sizes[part], hists)
            local[part] = -1
        return ok

    def first_ok_prefix(self, head: int, order: IntArray) -> int:
        """Smallest ``p`` such that ``head`` with ``order[: p + 1]`` satisfies the models.

        -1 when no prefix does. Histograms are accumulated chunk by chunk.
        """
        sizes = self.sizes[head] + np.cumsum(self.sizes[order])
        start = int(np.searchsorted(sizes, self.min_size))
        running = self._hists(np.r_[head, order[:start]].astype(np.int64), total=True)
        for lo in range(start, order.size, self.chunk):
            part = order[lo : lo + self.chunk]
            hists = self._hists(part)
            cums = [r[None, :] + np.cumsum(h, axis=0) for r, h in zip(running, hists, strict=True)]
            ok = ~self._violations(sizes[lo : lo + part.size], cums)
            if ok.any():
                return lo + int(np.argmax(ok))
            running = [c[-1] for c in cums]
        return -1

    def _hists(self, classes: IntArray, *, total: bool = False) -> list[IntArray]:
        """Per sensitive attribute, the histogram of each class (or of all of them)."""
        rows, owner = self._expand(classes)
        n = 1 if total else classes.size
        slot = np.zeros_like(owner) if total else owner
        out = []
        for _, codes, nv, _, _ in self.sensitive:
            hist = class_histograms(slot, codes[rows], n, nv, self.weights[rows])
            out.append(hist[0] if total else hist)
        return out

    def _expand(self, classes: IntArray) -> tuple[IntArray, IntArray]:
        """Rows of each given class, and for each row the position of its class."""
        counts = self.rows_per_class[classes]
        owner = np.repeat(np.arange(classes.size, dtype=np.int64), counts)
        offsets = np.arange(owner.size, dtype=np.int64) - np.repeat(
            np.cumsum(counts) - counts, counts
        )
        rows = self.row_order[self.class_start[classes][owner] + offsets]
        return rows, owner
