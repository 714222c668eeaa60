"""Encode released (or original) values as a float matrix for scikit-learn classifiers.

A release mixes value forms: hierarchy labels at any level, ``[lo-hi]`` ranges, ``*``,
microaggregated means and original values. :class:`FeatureEncoder` reads every form with
:func:`anonkit.metrics.release.interpret_release` (each distinct label once) and encodes

* a **hierarchy attribute** with ``top = max_level`` as ``top`` one-hot blocks, one per
  level ``l = 0 .. top - 1``: block ``l`` holds the ancestor at level ``l`` of the released
  value, set only when the value is at level ``<= l``. A value generalized to level 2 sets
  its level-2 (and higher) ancestors and leaves blocks 0 and 1 zero; ``*`` sets nothing; an
  original value sets every block. A range (Mondrian) counts as the smallest hierarchy node
  holding it. This is the "multi-level" encoding of generalized categories: a classifier
  trained on a release where education is at level 2 uses the level-2 block, and original
  test values, which set every block, land in the same columns.
* a **numeric attribute** as two columns, the midpoint and the width of the released
  interval (an exact value: width 0; ``*``: the train domain's midpoint and full width;
  open ends clipped to the train domain), both in units of the train domain
  ``[min, max]``: ``(mid - min) / (max - min)`` and ``width / (max - min)`` (the width is
  the normalized certainty penalty of the cell, Xu et al. 2006);
* an **extra feature** as itself, min-max scaled on the train split (numbers; missing
  values replaced by the train mean) or one-hot over the train categories (text; unseen
  categories set nothing).

Every column is thus on a [0, 1] scale fixed by the train split, so no scaler has to be
fitted on the (generalized) train matrix: a scaler fitted there would blow up columns that
are almost constant in the release (the width of a column released mostly as ``*``) when
the original test values, of width 0, are scored.

Columns that are constant over the train release (never set, set for every record, a
width that is 0 everywhere) are dropped when the encoder is fitted: they carry no
information for a classifier trained on the release, and a linear model would split its
intercept with them and then shift every test record that differs. Test values that would
set a dropped column set nothing.

The same information is also laid out as *codes* (:class:`Features`): one column per
(hierarchy attribute, level) holding the index of the set node in depth-first order, NaN
where the block is not set. Histogram gradient boosting reads these columns as native
categories (one column instead of a one-hot block makes it several times faster at equal
accuracy); logistic regression and random forests read the one-hot layout. Both are dense
``float32``: histogram gradient boosting needs dense input and random forests are fastest
on it; a few hundred columns for 30,000 rows take tens of megabytes.

The work is per distinct label: a ``labels x levels`` table of output columns, indexed by
each record's label code.

References
----------
Iyengar, V. S. (2002). Transforming data to satisfy privacy constraints. KDD.
LeFevre, K., DeWitt, D. J., Ramakrishnan, R. (2006). Workload-aware anonymization. KDD.
Xu, J., Wang, W., Pei, J., Wang, X., Shi, B., Fu, A. W.-C. (2006). Utility-based
anonymization using local recoding. KDD.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit._arrays import FloatArray, IntArray
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.hierarchy_builders import suppression
from anonkit.core.values import as_text
from anonkit.exceptions import UnknownColumnError
from anonkit.metrics.columns import QIColumn
from anonkit.metrics.labels import is_star, parse_interval
from anonkit.metrics.release import Release, interpret_release
from anonkit.study.setup import UtilitySetup

__all__ = ["FeatureEncoder", "Features", "LevelBlock", "read_release", "setup_hierarchies"]

FloatMatrix = npt.NDArray[np.float32]

#: Largest vocabulary encoded as categories in the codes layout: histogram gradient
#: boosting takes category values below its ``max_bins`` (255); missing values get a bin
#: of their own.
_MAX_CATEGORIES = 255


def _reads_as_numbers(series: pl.Series) -> bool:
    """Whether every distinct cell is a number, a numeric range or ``*``."""
    if series.dtype.is_numeric():
        return True
    labels = as_text(series.drop_nulls().unique()).to_list()
    return all(is_star(t) or parse_interval(t) is not None for t in labels)


def setup_hierarchies(
    setup: UtilitySetup, *frames: pl.DataFrame, release: pl.DataFrame | None = None
) -> dict[str, Hierarchy]:
    """Hierarchy of every quasi-identifier read through a hierarchy.

    Non-numeric quasi-identifiers use the setup's hierarchy; one without gets a
    suppression-only hierarchy (value or ``*``) over the distinct values of ``frames``, in
    order of first appearance (pass the same frames in the same order wherever the
    hierarchies must agree). A numeric quasi-identifier is read as numbers unless
    ``release`` writes it with labels that are neither numbers, ranges nor ``*`` and the
    setup has a hierarchy for it (a full-domain release of a hierarchy such as
    ``young / old``): then it is read through that hierarchy.

    Examples
    --------
    >>> from anonkit.study.setup import UtilitySetup
    >>> s = UtilitySetup(target="y", quasi_identifiers=("x",), hierarchies={})
    >>> setup_hierarchies(s, pl.DataFrame({"x": ["b", "a", "b"]}))["x"].rows
    (('b', '*'), ('a', '*'))
    """
    out: dict[str, Hierarchy] = {}
    for c in setup.quasi_identifiers:
        h = setup.hierarchies.get(c)
        if c in setup.numeric:
            if h is not None and release is not None and c in release.columns:
                if not _reads_as_numbers(release[c]):
                    out[c] = h
            continue
        if h is None:
            for frame in frames:
                if c not in frame.columns:
                    raise UnknownColumnError([c], frame.columns)
            values = pl.concat([as_text(f[c]) for f in frames]).drop_nulls()
            h = suppression(values.unique(maintain_order=True).to_list(), name=c)
        out[c] = h
    return out


def read_release(
    setup: UtilitySetup,
    hierarchies: Mapping[str, Hierarchy],
    original: pl.DataFrame,
    released: pl.DataFrame,
    levels: Mapping[str, int] | None = None,
) -> Release:
    """:func:`~anonkit.metrics.release.interpret_release` of the setup's quasi-identifiers:
    those in ``hierarchies`` through them, the other numeric ones as numbers; ``levels``
    is restricted to the hierarchy columns."""
    hint = None if levels is None else {c: v for c, v in levels.items() if c in hierarchies}
    return interpret_release(
        original,
        released,
        quasi_identifiers=setup.quasi_identifiers,
        hierarchies=hierarchies,
        numeric=tuple(c for c in setup.numeric if c not in hierarchies),
        levels=hint,
    )


def _ancestors(col: QIColumn) -> IntArray:
    """``(L, top)`` ancestor code at each level ``0 .. top-1`` of every label, ``-1`` where
    the label is above that level (or ``*``)."""
    h = col.hierarchy
    assert h is not None and col.order is not None
    top = h.max_level
    leaf = col.order[np.minimum(col.start, col.order.shape[0] - 1)]
    out = np.full((len(col.labels), top), -1, dtype=np.int64)
    for lv in range(top):
        out[:, lv] = np.where((col.level <= lv) & ~col.star, h.codes(lv)[leaf], -1)
    return out


def _interval(col: QIColumn, vmin: float, vmax: float) -> tuple[FloatArray, FloatArray]:
    """Midpoint and width of every label of a numeric column, clipped to ``[vmin, vmax]``."""
    lo = np.where(col.star, vmin, np.clip(col.lo, vmin, vmax))
    hi = np.where(col.star, vmax, np.clip(col.hi, vmin, vmax))
    exact = ~np.isnan(col.value)
    lo = np.where(exact, col.value, lo)  # means outside the train range stay as they are
    hi = np.where(exact, col.value, np.maximum(hi, lo))
    return (lo + hi) / 2.0, hi - lo


def _depth_first_rank(h: Hierarchy, level: int) -> IntArray:
    """Rank of every node at ``level`` in a depth-first walk of the hierarchy (siblings in
    file order), so that nodes under a common ancestor get consecutive ranks."""
    order = np.lexsort([h.codes(lv) for lv in range(h.height)])
    pos_of_leaf = np.empty(order.shape[0], dtype=np.int64)
    pos_of_leaf[order] = np.arange(order.shape[0])
    first = np.full(len(h.labels(level)), order.shape[0], dtype=np.int64)
    np.minimum.at(first, h.codes(level), pos_of_leaf)
    rank = np.empty_like(first)
    rank[np.argsort(first, kind="stable")] = np.arange(first.shape[0])
    return rank


@dataclass(frozen=True, eq=False)
class LevelBlock:
    """The output columns of one level of one hierarchy attribute.

    Attributes
    ----------
    level
        Hierarchy level.
    onehot
        First one-hot column of the block; node ``v`` sets ``onehot + index[v]``.
    code
        Column of the codes layout holding ``index[v]`` (NaN when no node is set).
    index
        Compact index of every node code at the level (depth-first order), ``-1`` for
        nodes no train record sets.
    """

    level: int
    onehot: int
    code: int
    index: IntArray


class Features(NamedTuple):
    """The two layouts of one encoded frame, both dense ``float32`` ``(n, columns)``.

    ``onehot``: the multi-level one-hot encoding (logistic regression, random forests);
    ``codes``: one column per (hierarchy attribute, level) holding the compact node index,
    NaN where the block is not set, numeric columns as in ``onehot``, text extras as
    category indices (histogram gradient boosting with native categorical support).
    """

    onehot: FloatMatrix
    codes: FloatMatrix


@dataclass(frozen=True, eq=False)
class FeatureEncoder:
    """A fitted encoding of released values into dense ``float32`` matrices.

    Build it with :meth:`fit`; encode other frames (the recoded or original test split)
    with :meth:`transform`. Two layouts carry the same information (:class:`Features`):
    one-hot and one code column per hierarchy level.

    Attributes
    ----------
    setup
        The utility setup (quasi-identifiers, numeric columns, extra features).
    hierarchies
        Hierarchy of each quasi-identifier read through one (see
        :func:`setup_hierarchies`); the other numeric ones are read as numbers.
    levels
        Level hint for labels that exist at several hierarchy levels (a full-domain
        transformation), passed to :func:`~anonkit.metrics.release.interpret_release`.
    raw_names
        Name of every one-hot column before constant columns are dropped:
        ``column@level=label``, ``column:mid``, ``column:width``, ``column`` (numeric
        extra) or ``column=category``.
    raw_code_names, raw_categorical
        Name of every column of the codes layout (``column@level``, ``column:mid``,
        ``column:width``, ``column``) and whether it holds category indices (at most 255
        categories, the bound of histogram gradient boosting; larger vocabularies are
        kept as ordinal depth-first ranks).
    onehot_kept, codes_kept
        The raw columns of each layout that vary over the train release: a column
        constant there carries no information, and a linear model would split its
        intercept with it and then shift every test record that differs (an original
        value has width 0 where the release has ``*`` everywhere).
    blocks
        Per hierarchy attribute, its :class:`LevelBlock` of each level ``0 .. top-1``
        that some train record sets.
    numeric_columns
        Per numeric attribute: ``(one-hot column of the midpoint, code column of the
        midpoint, train min, train max)``; the width is the next column in each layout.
    extra_columns
        Per extra feature: ``(first one-hot column, code column, categories)``;
        ``categories`` empty for a numeric feature.
    extra_scale
        Per numeric extra feature: ``(train mean, train min, train max - min)``; the mean
        replaces missing values, then the value is min-max scaled.

    Examples
    --------
    >>> from anonkit.study.setup import UtilitySetup
    >>> h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]])
    >>> setup = UtilitySetup(target="y", quasi_identifiers=("x", "n"),
    ...                      hierarchies={"x": h}, numeric=("n",))
    >>> train = pl.DataFrame({"x": ["a", "b", "c"], "n": [1, 5, 9], "y": [0, 1, 1]})
    >>> release = pl.DataFrame({"x": ["ab", "ab", "*"], "n": ["[1-5]", "[1-5]", "*"]})
    >>> enc, f = FeatureEncoder.fit(setup, train, release)
    >>> enc.feature_names, enc.code_names
    (('x@1=ab', 'n:mid', 'n:width'), ('x@1', 'n:mid', 'n:width'))
    >>> f.onehot.tolist()  # n: [1-5] is 0.25 to 0.75 of the train domain [1, 9]
    [[1.0, 0.25, 0.5], [1.0, 0.25, 0.5], [0.0, 0.5, 1.0]]
    >>> f.codes.tolist()
    [[0.0, 0.25, 0.5], [0.0, 0.25, 0.5], [nan, 0.5, 1.0]]
    >>> enc.transform(pl.DataFrame({"x": ["c"], "n": [3]})).onehot.tolist()
    [[0.0, 0.25, 0.0]]
    """

    setup: UtilitySetup
    hierarchies: Mapping[str, Hierarchy]
    levels: Mapping[str, int] | None
    raw_names: tuple[str, ...]
    raw_code_names: tuple[str, ...]
    raw_categorical: tuple[bool, ...]
    onehot_kept: IntArray
    codes_kept: IntArray
    blocks: Mapping[str, tuple[LevelBlock, ...]]
    numeric_columns: Mapping[str, tuple[int, int, float, float]]
    extra_columns: Mapping[str, tuple[int, int, tuple[str, ...]]]
    extra_scale: Mapping[str, tuple[float, float, float]]

    @property
    def feature_names(self) -> tuple[str, ...]:
        """Names of the columns of the one-hot layout."""
        return tuple(self.raw_names[i] for i in self.onehot_kept.tolist())

    @property
    def code_names(self) -> tuple[str, ...]:
        """Names of the columns of the codes layout."""
        return tuple(self.raw_code_names[i] for i in self.codes_kept.tolist())

    @property
    def code_categorical(self) -> tuple[bool, ...]:
        """Whether each column of the codes layout holds category indices."""
        return tuple(self.raw_categorical[i] for i in self.codes_kept.tolist())

    @property
    def n_features(self) -> int:
        """Columns of the one-hot layout."""
        return int(self.onehot_kept.shape[0])

    @classmethod
    def fit(
        cls,
        setup: UtilitySetup,
        train: pl.DataFrame,
        release: pl.DataFrame,
        *,
        levels: Mapping[str, int] | None = None,
        extra: Sequence[pl.DataFrame] = (),
    ) -> tuple[FeatureEncoder, Features]:
        """Fit the encoding on a release and return it with the release's matrices.

        Parameters
        ----------
        setup
            Columns and their roles.
        train, release
            The original train split and its release, row-aligned (``release`` may be
            ``train`` itself: the identity release).
        levels
            Level hint for ambiguous hierarchy labels (the full-domain transformation).
        extra
            Further frames whose values the suppression-only hierarchies of
            quasi-identifiers without a hierarchy must cover (the test split).

        Returns
        -------
        encoder, features
            The fitted encoder and the encoded ``release``.

        Raises
        ------
        UnknownColumnError, DataError, ValuesNotInHierarchyError
            As :func:`~anonkit.metrics.release.interpret_release`, or for a missing extra
            feature.
        """
        hierarchies = setup_hierarchies(setup, train, *extra, release=release)
        hint = {c: 0 for c in hierarchies} if release is train else levels
        read = read_release(setup, hierarchies, train, release, hint)
        names: list[str] = []
        code_names: list[str] = []
        categorical: list[bool] = []
        blocks: dict[str, tuple[LevelBlock, ...]] = {}
        numeric_columns: dict[str, tuple[int, int, float, float]] = {}
        for col in read.columns:
            if col.kind == "hierarchy":
                h = col.hierarchy
                assert h is not None
                anc = _ancestors(col)[np.flatnonzero(col.counts > 0)]
                per_level: list[LevelBlock] = []
                for lv in range(h.max_level):
                    used = np.unique(anc[:, lv][anc[:, lv] >= 0])
                    if used.size == 0:
                        continue
                    used = used[np.argsort(_depth_first_rank(h, lv)[used], kind="stable")]
                    index = np.full(len(h.labels(lv)), -1, dtype=np.int64)
                    index[used] = np.arange(used.size)
                    per_level.append(LevelBlock(lv, len(names), len(code_names), index))
                    labels = h.labels(lv)
                    names.extend(f"{col.name}@{lv}={labels[u]}" for u in used.tolist())
                    code_names.append(f"{col.name}@{lv}")
                    categorical.append(used.size <= _MAX_CATEGORIES)
                blocks[col.name] = tuple(per_level)
            else:
                assert col.domain_values is not None
                vmin, vmax = float(col.domain_values[0]), float(col.domain_values[-1])
                numeric_columns[col.name] = (len(names), len(code_names), vmin, vmax)
                names.extend([f"{col.name}:mid", f"{col.name}:width"])
                code_names.extend([f"{col.name}:mid", f"{col.name}:width"])
                categorical.extend([False, False])
        extra_columns: dict[str, tuple[int, int, tuple[str, ...]]] = {}
        extra_scale: dict[str, tuple[float, float, float]] = {}
        for c in setup.features:
            if c not in release.columns:
                raise UnknownColumnError([c], release.columns)
            series = release[c]
            if series.dtype.is_numeric() and series.dtype != pl.Boolean:
                values = series.cast(pl.Float64).fill_nan(None).drop_nulls()
                if values.len():
                    vmin, vmax = float(values.min()), float(values.max())  # type: ignore[arg-type]
                    mean = float(values.mean())  # type: ignore[arg-type]
                else:
                    vmin = vmax = mean = 0.0
                extra_scale[c] = (mean, vmin, vmax - vmin if vmax > vmin else 1.0)
                extra_columns[c] = (len(names), len(code_names), ())
                names.append(c)
                categorical.append(False)
            else:
                cats = tuple(sorted(as_text(series).drop_nulls().unique().to_list()))
                extra_columns[c] = (len(names), len(code_names), cats)
                names.extend(f"{c}={v}" for v in cats)
                categorical.append(len(cats) <= _MAX_CATEGORIES)
            code_names.append(c)
        raw = cls(
            setup=setup,
            hierarchies=hierarchies,
            levels=levels,
            raw_names=tuple(names),
            raw_code_names=tuple(code_names),
            raw_categorical=tuple(categorical),
            onehot_kept=np.arange(len(names), dtype=np.int64),
            codes_kept=np.arange(len(code_names), dtype=np.int64),
            blocks=blocks,
            numeric_columns=numeric_columns,
            extra_columns=extra_columns,
            extra_scale=extra_scale,
        )
        full = raw._encode(read, release)
        encoder = replace(raw, onehot_kept=_varying(full.onehot), codes_kept=_varying(full.codes))
        return encoder, Features(
            _take(full.onehot, encoder.onehot_kept), _take(full.codes, encoder.codes_kept)
        )

    def transform(self, released: pl.DataFrame, original: pl.DataFrame | None = None) -> Features:
        """Encode a frame in the fitted feature space.

        Parameters
        ----------
        released
            Released-form values (e.g. the recoded test split), or original values when
            ``original`` is omitted.
        original
            The original values of the same rows (needed to read released labels);
            ``None`` when ``released`` holds original values.

        Returns
        -------
        Features
            Both layouts, ``(n, columns)`` float32.
        """
        if original is None:
            hint = {c: 0 for c in self.hierarchies}
            read = read_release(self.setup, self.hierarchies, released, released, hint)
        else:
            read = read_release(self.setup, self.hierarchies, original, released, self.levels)
        return self._encode(read, released)

    def _encode(self, read: Release, frame: pl.DataFrame) -> Features:
        n = read.n_records
        onehot = np.zeros((n, len(self.raw_names)), dtype=np.float32)
        codes = np.full((n, len(self.raw_code_names)), np.nan, dtype=np.float32)
        for col in read.columns:
            if col.kind == "hierarchy":
                anc = _ancestors(col)
                for block in self.blocks[col.name]:
                    node = anc[:, block.level]
                    label_index = np.where(node >= 0, block.index[node], -1)  # per label
                    index = label_index[col.cell]
                    rows = np.flatnonzero(index >= 0)
                    onehot[rows, block.onehot + index[rows]] = 1.0
                    codes[rows, block.code] = index[rows]
            else:
                at, code_at, vmin, vmax = self.numeric_columns[col.name]
                mid, width = _interval(col, vmin, vmax)
                span = vmax - vmin if vmax > vmin else 1.0
                mid, width = (mid - vmin) / span, width / span
                onehot[:, at] = codes[:, code_at] = mid[col.cell]
                onehot[:, at + 1] = codes[:, code_at + 1] = width[col.cell]
        for c, (at, code_at, cats) in self.extra_columns.items():
            if c not in frame.columns:
                raise UnknownColumnError([c], frame.columns)
            series = frame[c]
            if not cats:
                mean, vmin, span = self.extra_scale[c]
                values = series.cast(pl.Float64, strict=False).fill_nan(None).fill_null(mean)
                onehot[:, at] = codes[:, code_at] = (values.to_numpy() - vmin) / span
            else:
                index = (
                    as_text(series)
                    .replace_strict(list(cats), list(range(len(cats))), default=-1)
                    .fill_null(-1)
                    .cast(pl.Int64)
                    .to_numpy()
                )
                rows = np.flatnonzero(index >= 0)
                onehot[rows, at + index[rows]] = 1.0
                codes[rows, code_at] = index[rows]
        return Features(_take(onehot, self.onehot_kept), _take(codes, self.codes_kept))


def _varying(matrix: FloatMatrix) -> IntArray:
    """Columns that are not constant (NaN counts as a value of its own)."""
    if matrix.shape[0] == 0:
        return np.arange(matrix.shape[1], dtype=np.int64)
    first = matrix[0]
    same = (matrix == first) | (np.isnan(matrix) & np.isnan(first))
    return np.flatnonzero(~same.all(axis=0)).astype(np.int64)


def _take(matrix: FloatMatrix, columns: IntArray) -> FloatMatrix:
    """``matrix[:, columns]`` as a C-contiguous array (no copy when every column is kept)."""
    if columns.shape[0] == matrix.shape[1]:
        return matrix
    return np.ascontiguousarray(matrix[:, columns])
