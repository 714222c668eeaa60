"""How every figure of :func:`anonkit.evaluate.evaluate` is presented: title, direction,
range, a one-line plain-language explanation and the source that defines it.

:data:`LOSS_INFO` and :data:`RISK_INFO` list the information-loss metrics and the risk
measures in report order; reports, the CLI and studies read their labels from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from anonkit._frozen import FrozenDict

__all__ = ["LOSS_INFO", "RISK_INFO", "MetricInfo", "percent_label"]


def percent_label(share: float) -> str:
    """A threshold such as ``risk_threshold`` as a percentage with the digits it has
    (``"20%"``, ``"12.5%"``): rounded to whole percent, 12.5 % read as 12 % and a class
    of 8 (risk 12.5 %) looked at risk where the figure did not count it."""
    return f"{share * 100:.6g}%"


class MetricInfo(NamedTuple):
    """How to present one figure: title, direction, range, explanation and source."""

    title: str
    better: str
    range: str
    explanation: str
    reference: str


#: Presentation of every loss metric, in report order.
LOSS_INFO: Mapping[str, MetricInfo] = FrozenDict(
    {
        "loss": MetricInfo(
            "Generalized information loss (Iyengar LM)",
            "lower",
            "[0, 1]",
            "Average share of an attribute's possible values a released cell could stand "
            "for: 0 keeps every value exact, 1 suppresses everything (Iyengar's LM, a sum "
            "over the attributes, divided by their number).",
            "Iyengar, KDD 2002",
        ),
        "ncp": MetricInfo(
            "Normalized certainty penalty (NCP)",
            "lower",
            "[0, 1]",
            "How uncertain each group's values became, weighted by group size: 0 keeps "
            "every value exact, 1 suppresses everything.",
            "Xu et al., KDD 2006",
        ),
        "precision": MetricInfo(
            "Precision loss (1 - Sweeney's precision)",
            "lower",
            "[0, 1]",
            "Share of the available hierarchy steps used across all cells: 0 keeps the "
            "original values, 1 suppresses everything.",
            "Sweeney, IJUFKS 2002",
        ),
        "height": MetricInfo(
            "Absolute distance (generalization height)",
            "lower",
            ">= 0",
            "Generalization steps applied, summed over the attributes (0 = values kept).",
            "Samarati & Sweeney 1998",
        ),
        "relative_distance": MetricInfo(
            "Relative distance",
            "lower",
            "[0, number of attributes]",
            "Generalization steps as a share of each hierarchy's height, summed over the "
            "attributes (each fully generalized attribute adds 1).",
            "Samarati & Sweeney 1998",
        ),
        "discernibility": MetricInfo(
            "Discernibility",
            "lower",
            "[N, N^2]",
            "Each record is charged the number of records it cannot be told apart from; "
            "a suppressed record, and one of a group smaller than k, is charged the whole "
            "table.",
            "Bayardo & Agrawal, ICDE 2005",
        ),
        "average_class_size": MetricInfo(
            "Average group size (C_avg)",
            "lower",
            ">= 1/k",
            "Average number of records per group, divided by k when k is given (1 = groups "
            "are as small as the privacy target allows).",
            "LeFevre et al., ICDE 2006",
        ),
        "conditional_entropy": MetricInfo(
            "Conditional entropy (Gionis-Tassa)",
            "lower",
            ">= 0 bits",
            "Bits an analyst would need to recover the original values from the released "
            "ones, summed over all cells (0 = nothing lost).",
            "Gionis & Tassa, ESA 2007",
        ),
        "nonuniform_entropy": MetricInfo(
            "Non-uniform entropy",
            "lower",
            ">= 0 bits",
            "How surprising each record's true value is given its released cell, in bits, "
            "summed over all cells (0 = nothing lost).",
            "Gionis & Tassa, TKDE 2009",
        ),
        "kl_divergence": MetricInfo(
            "KL divergence",
            "lower",
            ">= 0 bits",
            "How far the distribution an analyst would rebuild from the release is from the "
            "original one (0 = identical).",
            "Kifer & Gehrke, SIGMOD 2006",
        ),
        "classification": MetricInfo(
            "Classification metric (CM)",
            "lower",
            "[0, 1]",
            "Share of records suppressed or whose class label is not the majority label of "
            "their group (0 = every group is pure).",
            "Iyengar, KDD 2002",
        ),
        "sse": MetricInfo(
            "Sum of squared errors (SSE)",
            "lower",
            ">= 0",
            "Squared distance between the standardized original numbers and what the "
            "release says about them, summed over records.",
            "Domingo-Ferrer & Mateo-Sanz, TKDE 2002",
        ),
        "il": MetricInfo(
            "Information loss IL = 100 SSE / SST",
            "lower",
            "[0, 100] %",
            "Percentage of the numeric attributes' variation lost (0 = none, 100 = all).",
            "Domingo-Ferrer & Mateo-Sanz, TKDE 2002",
        ),
    }
)

#: Presentation of every risk measure, in report order.
RISK_INFO: Mapping[str, MetricInfo] = FrozenDict(
    {
        "prosecutor_max": MetricInfo(
            "Highest prosecutor risk",
            "lower",
            "[0, 1]",
            "Chance of re-identifying the most exposed record when the attacker knows the "
            "person is in the release (1 / smallest group).",
            "El Emam & Dankar, JAMIA 2008",
        ),
        "prosecutor_average": MetricInfo(
            "Average prosecutor risk",
            "lower",
            "[0, 1]",
            "Average chance of re-identifying a record when the attacker knows the person "
            "is in the release.",
            "El Emam & Dankar, JAMIA 2008",
        ),
        "journalist_max": MetricInfo(
            "Highest journalist risk",
            "lower",
            "[0, 1]",
            "Chance of re-identifying the most exposed record when the attacker links any "
            "person of the population (needs a population table).",
            "El Emam & Dankar, JAMIA 2008",
        ),
        "journalist_average": MetricInfo(
            "Average journalist risk",
            "lower",
            "[0, 1]",
            "Average chance of re-identifying a released record by linking against the "
            "population (needs a population table).",
            "El Emam & Dankar, JAMIA 2008",
        ),
        "marketer": MetricInfo(
            "Marketer risk",
            "lower",
            "[0, 1]",
            "Expected share of records an attacker re-identifies by linking every record "
            "(against the population table when given).",
            "El Emam & Dankar, JAMIA 2008",
        ),
        "sample_uniqueness": MetricInfo(
            "Sample uniques",
            "lower",
            "[0, 1]",
            "Share of released records that are alone in their group.",
            "Skinner & Elliot, JRSS B 2002",
        ),
        "records_at_risk": MetricInfo(
            "Records above the risk threshold",
            "lower",
            "[0, 1]",
            "Share of released records whose prosecutor risk is above the threshold.",
            "ARX risk analysis",
        ),
        "population_uniqueness": MetricInfo(
            "Population uniqueness (estimate)",
            "lower",
            "[0, 1]",
            "Estimated share of the population that is unique on the released "
            "quasi-identifiers (needs the population size).",
            "Hoshino, JOS 2001 (Pitman); Zayatz 1991",
        ),
    }
)
