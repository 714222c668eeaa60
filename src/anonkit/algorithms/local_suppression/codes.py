"""Local suppression over integer codes: :func:`suppress_codes`, the pure core."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from anonkit._frozen import FrozenDict
from anonkit.algorithms.local_suppression.checks import (
    OWNER,
    importance_weights,
    int_array,
    resolve_models,
    sensitive_specs,
)
from anonkit.algorithms.local_suppression.judge import Judge
from anonkit.algorithms.local_suppression.keys import group_rows, strides
from anonkit.algorithms.local_suppression.result import LocalSuppressionResult, SensitiveArray
from anonkit.algorithms.local_suppression.search import Search
from anonkit.exceptions import EmptyDataError, ParameterError
from anonkit.models.base import PrivacyModel


def suppress_codes(
    codes: npt.ArrayLike,
    *,
    k: int | None = None,
    models: Sequence[PrivacyModel] = (),
    weights: npt.ArrayLike | None = None,
    sensitive: Mapping[str, SensitiveArray] | None = None,
    cardinalities: Sequence[int] | None = None,
    star: Sequence[int] | None = None,
    importance: Sequence[float] | None = None,
    names: Sequence[str] | None = None,
    judge_suppressed: bool = False,
) -> LocalSuppressionResult:
    """Suppress quasi-identifier cells, few and unimportant ones first, until models hold.

    The pure core of local suppression, over integer codes; see the module docstring for
    the semantics of ``*`` (a literal value of its column) and the greedy heuristic.

    Parameters
    ----------
    codes
        ``(n_rows, n_qi)`` non-negative int codes of the quasi-identifiers after a global
        recoding. Rows may be records or distinct combinations with ``weights``.
    k
        Shortcut for ``KAnonymity(k)`` among ``models``.
    models
        Class-local privacy models (k-anonymity, ℓ-diversity, t-closeness, ...); every
        released class must satisfy all of them. Models needing population counts are
        not supported.
    weights
        Records each row stands for (a frequency snapshot); positive ints, default 1.
    sensitive
        Per sensitive attribute named by a model, its :class:`SensitiveArray`.
    cardinalities
        Size of each column's code space; default: largest code + 1.
    star
        Code of ``*`` in each column; default ``cardinalities[j]`` (one extra code). Input
        cells holding it are already suppressed.
    importance
        Weight of each quasi-identifier, > 0; higher means kept longer (default all 1).
    names
        Column names for the report; default ``"0"``, ``"1"``, ...
    judge_suppressed
        Also require the class of records whose quasi-identifiers are all ``*`` to satisfy
        the models (default: those records are suppressed and not judged, as in
        ``anonkit check``).

    Returns
    -------
    LocalSuppressionResult

    Raises
    ------
    ParameterError
        On invalid parameters.
    PrivacyUnattainableError
        With ``judge_suppressed=True`` only: when the whole table, as one class, violates
        the models.

    Examples
    --------
    Two records are alone in their class; blanking their age puts them together:

    >>> import numpy as np
    >>> codes = np.array([[0, 0], [0, 0], [1, 0], [1, 1], [1, 2]])
    >>> res = suppress_codes(codes, k=2, names=["sex", "age"])
    >>> res.codes.tolist()
    [[0, 0], [0, 0], [1, 3], [1, 3], [1, 3]]
    >>> dict(res.cells_per_attribute), res.records_touched
    ({'sex': 0, 'age': 3}, 3)
    """
    x = int_array(codes, "codes", 2)
    n, q = x.shape
    if n == 0:
        raise EmptyDataError()
    if q == 0:
        raise ParameterError("codes", OWNER, "at least one quasi-identifier column", x.shape)
    if not isinstance(judge_suppressed, (bool, np.bool_)):
        raise ParameterError("judge_suppressed", OWNER, "True or False", judge_suppressed)
    if weights is None:
        w = np.ones(n, dtype=np.int64)
    else:
        w = int_array(weights, "weights", 1)
        if w.shape[0] != n or (w < 1).any():
            raise ParameterError("weights", OWNER, f"{n} positive ints", weights)
    n_records = int(w.sum())
    labels = [str(j) for j in range(q)] if names is None else [str(c) for c in names]
    if len(labels) != q or len(set(labels)) != q:
        raise ParameterError("names", OWNER, f"{q} distinct column names", names)
    if x.size and x.min() < 0:
        raise ParameterError("codes", OWNER, "non-negative int codes", int(x.min()))
    if cardinalities is None:
        card = x.max(axis=0) + 1 if star is None else None
    else:
        card = np.asarray(cardinalities, dtype=np.int64)
        if card.shape != (q,):
            raise ParameterError("cardinalities", OWNER, f"{q} ints", cardinalities)
    if star is None:
        assert card is not None
        star_code = card.astype(np.int64)
    else:
        star_code = np.asarray(star, dtype=np.int64)
        if star_code.shape != (q,) or (star_code < 0).any():
            raise ParameterError("star", OWNER, f"{q} non-negative ints", star)
    if card is None:
        card = np.maximum(np.where(x == star_code, -1, x).max(axis=0) + 1, star_code)
    out_of_range = (x >= card) & (x != star_code)
    if out_of_range.any():
        j = int(np.flatnonzero(out_of_range.any(axis=0))[0])
        raise ParameterError(
            "codes",
            OWNER,
            f"codes below {int(card[j])} in column {labels[j]!r}",
            int(x[out_of_range[:, j], j].max()),
        )
    weights_imp = importance_weights(importance, q)
    resolved = resolve_models(k, models, n_records)
    sens = sensitive_specs(resolved, sensitive, n)

    # dense codes per column, '*' last; then group identical (qi, sensitive) rows
    dense = np.empty_like(x)
    bases = []
    for j in range(q):
        col = x[:, j]
        is_star = col == star_code[j]
        values = np.unique(col[~is_star])
        dense[:, j] = np.where(is_star, values.size, np.searchsorted(values, col))
        bases.append(values.size + 1)
    internal_star = np.asarray(bases, dtype=np.int64) - 1
    full = np.hstack([dense, *(s[1][:, None] for s in sens)]) if sens else dense
    full_bases = bases + [s[2] for s in sens]
    _, first, inverse = group_rows(full, strides(full_bases))
    row_w = np.bincount(inverse, weights=w, minlength=first.size).astype(np.int64)
    row_sens = [(name, c[first], nv, lab, h) for name, c, nv, lab, h in sens]
    judge = Judge(resolved, row_sens, row_w, n_records)
    search = Search(
        dense[first], internal_star, weights_imp, judge, strides(bases), bool(judge_suppressed)
    )
    final = search.run()

    newly = (final == internal_star[None, :]) & (dense[first] != internal_star[None, :])
    mask = newly[inverse]
    out = np.where(mask, star_code[None, :], x)
    per_attr = (newly * row_w[:, None]).sum(axis=0)
    touched = newly.any(axis=1)
    was_all = (dense[first] == internal_star[None, :]).all(axis=1)
    now_all = (final == internal_star[None, :]).all(axis=1)
    return LocalSuppressionResult(
        quasi_identifiers=tuple(labels),
        codes=out,
        suppressed=mask,
        cells_per_attribute=FrozenDict({c: int(v) for c, v in zip(labels, per_attr, strict=True)}),
        cells=int(per_attr.sum()),
        cost=float(per_attr @ weights_imp),
        records_touched=int(row_w[touched].sum()),
        records_suppressed=int(row_w[now_all & ~was_all].sum()),
        rounds=search.rounds,
        privacy=tuple(m.describe() for m in resolved),
    )
