"""The independent re-check of a release before it is written, and the risk it states.

:func:`anonkit.anonymize` decides on integer codes and frequency snapshots. Before the
release leaves, :func:`verify_release` starts again from the released table itself: it
groups the released records by their released quasi-identifier labels (text, not codes),
counts each class's sensitive values, and judges every requested privacy model on those
classes (:func:`anonkit.metrics.levels.released_classes` and
:func:`~anonkit.metrics.levels.check_models`, the path ``anonkit check`` and the HTML report
use). It also recounts the suppressed records against the limit. Any failure is a bug, and
:class:`~anonkit.exceptions.ReleaseVerificationError` stops the run before anything is
written.

Records whose every quasi-identifier is ``*`` are suppressed and belong to no class (the
convention of ARX and of the search). When there are more of them than the suppression
limit allows, they cannot all be suppressed records: they are then judged as one class of
fully generalized records (a release at the top of the lattice, or a Mondrian partition
generalized to the root in every column), as an attacker would see them.

The same classes give the release's re-identification risk (seed 001, after El Emam &
Dankar 2008): prosecutor risk (highest and average), marketer risk, sample uniques and
the share of records above a risk threshold; journalist risk needs a population table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from anonkit._frozen import FrozenDict
from anonkit.core.transform import all_starred
from anonkit.exceptions import ReleaseVerificationError
from anonkit.metrics.levels import check_models, model_attributes, released_classes
from anonkit.metrics.risk import (
    average_journalist_risk,
    average_prosecutor_risk,
    journalist_risk,
    marketer_risk,
    prosecutor_risk,
    records_at_risk,
    sample_uniqueness_risk,
)
from anonkit.models.base import CLASS_SIZE, ClassSummary, PrivacyModel

__all__ = ["Verification", "release_risk", "verify_release"]

#: Records above this prosecutor risk count as "at risk" in the summary (classes below 5).
RISK_THRESHOLD = 0.2


@dataclass(frozen=True)
class Verification:
    """The outcome of :func:`verify_release` (JSON-ready through :meth:`to_dict`).

    Attributes
    ----------
    verified
        Every requested model holds on the released classes and the suppressed records
        are within the limit.
    models
        Per model: its description, whether it holds, and the classes and records that
        violate it.
    suppressed
        Records found suppressed in the release (every quasi-identifier ``*``, or left out).
    n_classes
        Equivalence classes of the released, not suppressed, records.
    risk
        Re-identification risk of the released records (:func:`release_risk`).
    """

    verified: bool
    models: tuple[Mapping[str, Any], ...]
    suppressed: int
    n_classes: int
    risk: Mapping[str, float | None]

    def to_dict(self) -> dict[str, Any]:
        return {
            "verified": self.verified,
            "models": [dict(m) for m in self.models],
            "suppressed": self.suppressed,
            "classes": self.n_classes,
            "risk": dict(self.risk),
        }


def release_risk(
    sizes: np.ndarray[Any, Any],
    population_sizes: np.ndarray[Any, Any] | None = None,
    *,
    threshold: float = RISK_THRESHOLD,
) -> dict[str, float | None]:
    """The risk figures of a release from its class sizes (and population counts).

    Keys: ``prosecutor_max``, ``prosecutor_average``, ``journalist_max`` and
    ``journalist_average`` (``None`` without population counts), ``marketer``,
    ``sample_uniques`` (records alone in their class), ``sample_uniqueness`` (their share),
    ``records_at_risk`` (share of records whose prosecutor risk exceeds ``threshold``) and
    ``risk_threshold``.

    Examples
    --------
    >>> import numpy as np
    >>> r = release_risk(np.array([1, 4, 5]))
    >>> r["prosecutor_max"], r["sample_uniques"], r["records_at_risk"]
    (1.0, 1, 0.5)
    """
    s = np.asarray(sizes, dtype=np.int64)
    pop = None if population_sizes is None else np.asarray(population_sizes, dtype=np.int64)
    out: dict[str, float | None] = {
        "prosecutor_max": prosecutor_risk(s),
        "prosecutor_average": average_prosecutor_risk(s),
        "journalist_max": journalist_risk(s, pop) if pop is not None else None,
        "journalist_average": average_journalist_risk(s, pop) if pop is not None else None,
        "marketer": marketer_risk(s, pop),
        "sample_uniques": int(s[s == 1].sum()),
        "sample_uniqueness": sample_uniqueness_risk(s),
        "records_at_risk": records_at_risk(s, threshold=threshold),
        "risk_threshold": threshold,
    }
    return out


#: Releases with more rows than this are tallied before their classes are re-counted.
_TALLY_ROWS = 2_000
_TALLY = "__anonkit_records__"


def verify_release(
    release: pl.DataFrame,
    *,
    quasi_identifiers: Sequence[str],
    models: Sequence[PrivacyModel],
    n_records: int,
    suppression_limit: float,
    sensitive_hierarchies: Mapping[str, Any] | None = None,
    population: pl.DataFrame | None = None,
    hierarchies: Mapping[str, Any] | None = None,
    numeric: Sequence[str] = (),
    weight: str | None = None,
    suppressed: int | None = None,
) -> Verification:
    """Re-check ``release`` independently of the search; raise if it fails.

    Parameters
    ----------
    release
        The release with suppressed records masked (``*`` in every quasi-identifier), one
        row per input record, so that distributions over the whole table are those the
        search judged against.
    quasi_identifiers
        The released quasi-identifiers.
    models
        Every privacy model the release claims.
    n_records
        Records of the input.
    suppression_limit
        The largest share of records that may be suppressed.
    sensitive_hierarchies
        Hierarchies (objects, paths or builder tables) of sensitive attributes, for
        hierarchical t-closeness.
    population, hierarchies, numeric
        For models that read population counts (k-map, δ-presence): the population table,
        the quasi-identifiers' hierarchies and the quasi-identifiers released as numbers.
    weight
        A column holding how many records each row of ``release`` stands for: a release
        too large for memory is checked on its tally (one row per distinct combination of
        released quasi-identifiers and sensitive values, see
        :meth:`anonkit.engines.base.Engine.tally`).
    suppressed
        How many records the algorithm says it suppressed. Records with ``*`` in every
        quasi-identifier are suppressed ones, unless it suppressed none (then they are a
        class, generalized to the top, judged as one) or they are more than the limit
        allows (the same).

    Raises
    ------
    ReleaseVerificationError
        If a model fails on a released class or more records are suppressed than allowed.
    """
    qi = list(quasi_identifiers)
    sensitive = model_attributes(models)
    allowed = math.floor(suppression_limit * n_records + 1e-9)
    size_only = all(m.requires <= {CLASS_SIZE} for m in models)
    frame = release
    if size_only or (weight is None and release.height > _TALLY_ROWS):
        # the classes, histograms and suppressed records read only these columns: count
        # them from one row per distinct combination (one group-by over the labels)
        # instead of reading every record's labels again for each; class sizes alone
        # need the quasi-identifiers alone, whose combinations are the classes
        keys = qi if size_only else list(dict.fromkeys([*qi, *sensitive]))
        rows = pl.len() if weight is None else pl.col(weight).sum()
        frame = release.group_by(keys).agg(rows.cast(pl.Int64).alias(_TALLY))
        weight = _TALLY
    starred = all_starred(qi)
    if weight is None:
        n_star = int(release.select(starred.sum()).item())
        height = release.height
    else:
        n_star = int(frame.select(pl.col(weight).filter(starred).sum()).item())
        height = int(frame[weight].sum())
    # more than the limit allows cannot all be suppressed: fully generalized records, judged
    # as one class (a release at the top of the lattice, a Mondrian box of roots)
    top = n_star > allowed or suppressed == 0
    if top:
        n_star = 0
    if size_only:
        # class sizes are all these models read: the tally's rows are the classes
        kept = frame.filter(~starred) if n_star else frame
        sizes = kept[_TALLY].to_numpy()
        summary = ClassSummary(sizes.astype(np.int64), height)
        checks = [_size_check(summary, m) for m in models]
    else:
        specs: dict[str, Any] = dict(sensitive_hierarchies or {})
        if population is not None:
            specs.update(hierarchies or {})
        classes = released_classes(
            frame,
            qi,
            sensitive,
            hierarchies=specs,
            population=population,
            numeric=list(numeric),
            starred_suppressed=not top,
            weight=weight,
        )
        summary = classes.summary
        checks = [c.to_dict() for c in check_models(classes, models, limit=0)]
    failures = [
        f"{c['model']} fails in {c['failing_classes']} class(es) holding "
        f"{c['failing_records']} records"
        for c in checks
        if not c["satisfied"]
    ]
    missing = n_records - height
    if missing < 0:
        failures.append(f"the release has {height} records, the input {n_records}")
    suppressed = n_star + max(missing, 0)
    if suppressed > allowed:
        failures.append(f"{suppressed} records suppressed, the limit allows {allowed}")
    if failures:
        raise ReleaseVerificationError(failures)
    return Verification(
        verified=True,
        models=tuple(FrozenDict(c) for c in checks),
        suppressed=suppressed,
        n_classes=summary.n_classes,
        risk=FrozenDict(release_risk(summary.sizes, summary.population)),
    )


def _size_check(summary: ClassSummary, model: PrivacyModel) -> dict[str, Any]:
    """A model that reads class sizes only, judged on ``summary`` (no examples)."""
    bad = np.flatnonzero(model.violations(summary)) if summary.n_classes else np.zeros(0, int)
    return {
        "model": model.describe(),
        "satisfied": not bad.size,
        "failing_classes": int(bad.size),
        "failing_records": int(summary.sizes[bad].sum()),
        "examples": [],
    }
