"""Achieved privacy levels of a released table, and which classes fail requested models.

``anonkit check``, ``anonkit evaluate`` and the HTML report read a release as it is
published: its equivalence classes are the records with equal released quasi-identifier
values (records whose every quasi-identifier is ``*`` are suppressed and belong to no
class), and each sensitive attribute is counted per class. :func:`released_classes` builds
that :class:`~anonkit.models.base.ClassSummary` from the table; :func:`privacy_levels`
measures the strongest parameter of every model the release meets (one implementation of
each formula, :mod:`anonkit.models.measure`); :func:`check_models` lists the classes that
violate requested models.

The sensitive distributions a class is compared with (t-closeness, δ-disclosure,
β-likeness) are those of the *whole table*, suppressed records included, exactly as the
anonymization judged them.

References
----------
L. Sweeney. k-anonymity: a model for protecting privacy. IJUFKS 10(5), 2002.
A. Machanavajjhala, D. Kifer, J. Gehrke, M. Venkitasubramaniam. ℓ-Diversity: Privacy beyond
k-anonymity. ACM TKDD 1(1), 2007.
N. Li, T. Li, S. Venkatasubramanian. t-Closeness: Privacy beyond k-anonymity and
ℓ-diversity. ICDE 2007.
J. Brickell, V. Shmatikov. The cost of privacy. KDD 2008 (δ-disclosure).
J. Cao, P. Karras. Publishing microdata with a robust privacy guarantee. PVLDB 5(11), 2012
(β-likeness).

Examples
--------
>>> import polars as pl
>>> release = pl.DataFrame({"zip": ["130**"] * 4 + ["1485*"] * 3 + ["*"],
...                         "age": ["<30"] * 4 + [">40"] * 3 + ["*"],
...                         "disease": ["flu", "flu", "cold", "ulcer", "flu", "cold", "cold",
...                                     "flu"]})
>>> classes = released_classes(release, ["zip", "age"], ["disease"])
>>> classes.summary.sizes.tolist(), classes.n_suppressed, classes.key(0)
([4, 3], 1, {'zip': '130**', 'age': '<30'})
>>> levels = privacy_levels(classes)
>>> levels["k"], levels["sensitive"]["disease"]["distinct_l"]
(3, 2)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from anonkit._frozen import FrozenDict
from anonkit._validation import check_int
from anonkit.exceptions import ParameterError
from anonkit.metrics.released import OWNER, ReleasedClasses, released_classes
from anonkit.models.base import POPULATION_COUNT, PrivacyModel, SensitiveColumn
from anonkit.models.measure import (
    achieved_average_risk,
    achieved_beta,
    achieved_delta,
    achieved_distinct_l,
    achieved_entropy_l,
    achieved_k,
    achieved_k_map,
    achieved_presence,
    achieved_recursive_c,
    achieved_t,
    failing_classes,
)

__all__ = [
    "PRIVACY_INFO",
    "LevelInfo",
    "ModelCheck",
    "ReleasedClasses",
    "check_models",
    "json_ready",
    "model_attributes",
    "privacy_levels",
    "released_classes",
]


class LevelInfo(NamedTuple):
    """How to present one achieved level: title, direction, explanation and source."""

    title: str
    better: str
    explanation: str
    reference: str


#: Presentation of every achieved level, in report order (per attribute after ``k``).
PRIVACY_INFO: Mapping[str, LevelInfo] = FrozenDict(
    {
        "k": LevelInfo(
            "k-anonymity (smallest group)",
            "higher",
            "Every released record shares its quasi-identifier values with at least k-1 "
            "others, so it hides in a group of at least k.",
            "Sweeney, IJUFKS 2002",
        ),
        "average_risk": LevelInfo(
            "Average re-identification risk",
            "lower",
            "Groups divided by released records: the average chance of picking out a "
            "record when the attacker knows the person is in the release.",
            "El Emam, 2013",
        ),
        "k_map": LevelInfo(
            "k-map (smallest population group)",
            "higher",
            "Every released group matches at least k people of the population table.",
            "Sweeney 2001; El Emam & Dankar, JAMIA 2008",
        ),
        "presence": LevelInfo(
            "δ-presence (share of the population released)",
            "narrower",
            "Smallest and largest share of a group's population that is in the release: "
            "how sure an attacker can be that a person is in the data.",
            "Nergiz et al., SIGMOD 2007",
        ),
        "distinct_l": LevelInfo(
            "Distinct ℓ-diversity",
            "higher",
            "Fewest different sensitive values in any group (1 means some group reveals "
            "the value of all its members).",
            "Machanavajjhala et al., TKDD 2007",
        ),
        "entropy_l": LevelInfo(
            "Entropy ℓ-diversity",
            "higher",
            "The least diverse group is as uncertain as ℓ equally frequent values "
            "(exp of the smallest group entropy).",
            "Machanavajjhala et al., TKDD 2007",
        ),
        "recursive_c": LevelInfo(
            "Recursive (c, ℓ)-diversity",
            "lower",
            "Smallest c such that in every group the most frequent value is rarer than c "
            "times the values from the ℓ-th most frequent on (none: a group has fewer "
            "than ℓ values).",
            "Machanavajjhala et al., TKDD 2007",
        ),
        "t_equal": LevelInfo(
            "t-closeness, equal distance",
            "lower",
            "Largest distance between a group's sensitive values and the whole table's "
            "(0 = same distribution, 1 = nothing in common); all values equally far apart.",
            "Li et al., ICDE 2007",
        ),
        "t_ordered": LevelInfo(
            "t-closeness, ordered distance",
            "lower",
            "As above, with values in order, so shifting mass to a neighbouring value "
            "costs less than to a distant one.",
            "Li et al., ICDE 2007",
        ),
        "t_hierarchical": LevelInfo(
            "t-closeness, hierarchical distance",
            "lower",
            "As above, with values in the same branch of the attribute's hierarchy "
            "counting as close.",
            "Li et al., ICDE 2007",
        ),
        "delta": LevelInfo(
            "δ-disclosure privacy",
            "lower",
            "Largest |ln(q/p)| of a value's share q in a group against its share p in the "
            "table: seeing the group changes beliefs by at most a factor exp(δ).",
            "Brickell & Shmatikov, KDD 2008",
        ),
        "beta_basic": LevelInfo(
            "Basic β-likeness",
            "lower",
            "Largest relative gain (q - p)/p of a value's share in a group over its share "
            "in the table.",
            "Cao & Karras, PVLDB 2012",
        ),
        "beta_enhanced": LevelInfo(
            "Enhanced β-likeness",
            "lower",
            "Basic β when every gain is also at most -ln p, which keeps rare values from "
            "becoming near-certain (none: some gain exceeds -ln p).",
            "Cao & Karras, PVLDB 2012",
        ),
    }
)


def model_attributes(models: Iterable[PrivacyModel]) -> list[str]:
    """The sensitive attributes the models protect, in order of first mention."""
    return list(dict.fromkeys(a for m in models for a in m.sensitive_attributes))


# ---------------------------------------------------------------------------- levels
def _order_kind(column: SensitiveColumn) -> str:
    try:
        if all(math.isfinite(float(v)) for v in column.labels):
            return "numeric"
    except ValueError:
        pass
    return "hierarchy" if column.hierarchy is not None else "alphabetical"


def privacy_levels(classes: ReleasedClasses, *, l_values: Sequence[int] = (2, 3)) -> dict[str, Any]:
    """The strongest parameter of every privacy model the release meets.

    Returns
    -------
    dict
        ``k`` (smallest class), ``average_risk`` (classes / records), with population
        counts ``k_map`` and ``presence`` (``{"min", "max"}``), and ``sensitive``: per
        attribute ``distinct_l``, ``entropy_l``, ``recursive_c`` (per ℓ of ``l_values``;
        the infimum c, ``inf`` when a class has fewer than ℓ values), ``t_equal``,
        ``t_ordered`` (and ``order``: ``numeric``, ``hierarchy`` or ``alphabetical``),
        ``t_hierarchical`` (with a hierarchy, else absent), ``delta`` (infimum),
        ``beta_basic`` and ``beta_enhanced`` (``inf`` when no β works). Without any class
        (everything suppressed) only ``classes: 0`` is returned. :func:`json_ready` turns
        the ``inf`` values into ``None`` (JSON ``null``: no parameter satisfies the model).

    See :mod:`anonkit.models.measure` for the formulas.
    """
    ls = sorted({int(v) for v in l_values})
    if any(v < 1 for v in ls):
        raise ParameterError("l", OWNER, "ints >= 1", list(l_values))
    s = classes.summary
    out: dict[str, Any] = {"classes": s.n_classes}
    if not s.n_classes:
        return out
    out["k"] = achieved_k(s)
    out["average_risk"] = achieved_average_risk(s)
    if s.population is not None:
        out["k_map"] = achieved_k_map(s)
        lo, hi = achieved_presence(s)
        out["presence"] = {"min": lo, "max": hi}
    per: dict[str, Any] = {}
    for name, column in s.sensitive.items():
        entry: dict[str, Any] = {
            "distinct_l": achieved_distinct_l(s, name),
            "entropy_l": achieved_entropy_l(s, name),
            "recursive_c": {str(v): achieved_recursive_c(s, name, v) for v in ls},
            "t_equal": achieved_t(s, name, "equal"),
            "t_ordered": achieved_t(s, name, "ordered"),
            "order": _order_kind(column),
        }
        if column.hierarchy is not None:
            entry["t_hierarchical"] = achieved_t(s, name, "hierarchical")
        entry["delta"] = achieved_delta(s, name)
        entry["beta_basic"] = achieved_beta(s, name)
        entry["beta_enhanced"] = achieved_beta(s, name, enhanced=True)
        per[name] = entry
    out["sensitive"] = per
    return out


# ---------------------------------------------------------------------------- models
@dataclass(frozen=True)
class ModelCheck:
    """How a release fares against one requested privacy model.

    Attributes
    ----------
    model
        The model's one-line description.
    failing_classes, failing_records
        Classes that violate it, and their records.
    examples
        Released quasi-identifier values of the first failing classes (at most
        ``limit`` of :func:`check_models`); generalized values, not records.
    """

    model: str
    failing_classes: int
    failing_records: int
    examples: tuple[Mapping[str, str], ...]

    @property
    def satisfied(self) -> bool:
        return self.failing_classes == 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "satisfied": self.satisfied,
            "failing_classes": self.failing_classes,
            "failing_records": self.failing_records,
            "examples": [dict(e) for e in self.examples],
        }


def check_models(
    classes: ReleasedClasses, models: Sequence[PrivacyModel], *, limit: int = 10
) -> tuple[ModelCheck, ...]:
    """Which classes of the release violate each model.

    Every attribute a model protects must be among the sensitive attributes of
    ``classes`` (see :func:`model_attributes`), and a model reading population counts
    needs ``classes`` built with a population table.

    Raises
    ------
    ParameterError
        If ``limit`` is negative or a model needs a population table and none was given.

    Examples
    --------
    >>> import polars as pl
    >>> from anonkit.models import KAnonymity
    >>> release = pl.DataFrame({"zip": ["130**", "130**", "1485*"], "age": ["<30"] * 3})
    >>> (check,) = check_models(released_classes(release, ["zip", "age"]), [KAnonymity(2)])
    >>> check.failing_classes, check.failing_records, dict(check.examples[0])
    (1, 1, {'zip': '1485*', 'age': '<30'})
    """
    check_int(limit, "limit", "check_models", low=0)
    s = classes.summary
    out = []
    for model in models:
        if POPULATION_COUNT in model.requires and s.population is None and s.n_classes:
            raise ParameterError(
                "population", OWNER, f"a population table for {model.describe()}", None
            )
        bad = failing_classes(s, model) if s.n_classes else np.zeros(0, dtype=np.int64)
        out.append(
            ModelCheck(
                model=model.describe(),
                failing_classes=int(bad.shape[0]),
                failing_records=int(s.sizes[bad].sum()),
                examples=tuple(FrozenDict(classes.key(int(i))) for i in bad[:limit]),
            )
        )
    return tuple(out)


def json_ready(value: Any) -> Any:
    """``value`` with numpy scalars made plain and non-finite floats made ``None``."""
    if isinstance(value, Mapping):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    return value
