"""The algorithm settings of a study grid: :class:`AlgorithmSpec`, one ``algorithms``
entry expanded (:func:`parse_algorithm`) and the default set (:func:`default_algorithms`).

Each spec names an algorithm and its *variant*, the setting a study compares: the
optimization ``metric`` of the full-domain searches, the ``mode`` of ``mondrian``, the
``cost`` of ``greedy_merge`` and the ``method`` of ``microaggregation``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from anonkit._frozen import FrozenDict
from anonkit.algorithms.lattice import LATTICE_ALGORITHMS
from anonkit.algorithms.microaggregation.aggregate import AGGREGATES
from anonkit.algorithms.microaggregation.estimator import METHODS
from anonkit.algorithms.mondrian import MODES, NUMERIC_RELEASES, SPLITS
from anonkit.exceptions import ParameterError, UnknownNameError
from anonkit.metrics.cost_matrix import COST_FUNCTIONS
from anonkit.metrics.generalization import METRICS

__all__ = ["AlgorithmSpec", "default_algorithms", "parse_algorithm"]

OWNER = "StudyConfig"
_LOCAL_VARIANT = {"mondrian": "mode", "greedy_merge": "cost", "microaggregation": "method"}
_EXTRA_OPTIONS = {
    "mondrian": ("split", "numeric_release"),
    "microaggregation": ("aggregate",),
}


def _lattice_algorithms() -> tuple[str, ...]:
    return tuple(LATTICE_ALGORITHMS)


def _variant_key(algorithm: str) -> str:
    return _LOCAL_VARIANT.get(algorithm, "metric")


def _variants(algorithm: str) -> tuple[str, ...]:
    """Every value the variant of ``algorithm`` may take, in their canonical order."""
    if algorithm == "mondrian":
        return tuple(MODES)
    if algorithm == "greedy_merge":
        return COST_FUNCTIONS
    if algorithm == "microaggregation":
        return tuple(METHODS)
    return tuple(METRICS)


def _option_values(algorithm: str, option: str) -> tuple[str, ...]:
    if option == "split":
        return tuple(SPLITS)
    if option == "numeric_release":
        return tuple(NUMERIC_RELEASES)
    return tuple(AGGREGATES)


_DEFAULT_VARIANT = {"mondrian": "strict", "greedy_merge": "nllm", "microaggregation": "mdav"}


@dataclass(frozen=True)
class AlgorithmSpec:
    """One algorithm setting of a study grid: an algorithm, its variant and options.

    Parameters
    ----------
    algorithm
        A full-domain search (``flash``, ``exhaustive``, ``samarati``, ``datafly``,
        ``incognito``) or ``mondrian``, ``greedy_merge``, ``microaggregation``.
    variant
        What the study compares for that algorithm: the optimization metric of a
        full-domain search (default ``loss``), Mondrian's mode (``strict``), the cost
        function of greedy merging (``nllm``), the microaggregation method (``mdav``).
    options
        Further :func:`anonkit.anonymize` options: Mondrian's ``split`` and
        ``numeric_release``, microaggregation's ``aggregate``.

    Raises
    ------
    UnknownNameError
        For an unknown algorithm, variant or option value.
    ParameterError
        For an option the algorithm does not take.

    Examples
    --------
    >>> AlgorithmSpec("greedy_merge", "ncp").cell
    'greedy_merge:ncp'
    >>> AlgorithmSpec("flash").anonymize_options()
    {'metric': 'loss'}
    """

    algorithm: str
    variant: str = ""
    options: Mapping[str, str] = field(default_factory=lambda: FrozenDict({}))

    def __post_init__(self) -> None:
        known = (*_lattice_algorithms(), *_LOCAL_VARIANT)
        if self.algorithm not in known:
            raise UnknownNameError("algorithm", str(self.algorithm), known)
        variant = self.variant or _DEFAULT_VARIANT.get(self.algorithm, "loss")
        allowed = _variants(self.algorithm)
        if variant not in allowed:
            raise UnknownNameError(
                f"{_variant_key(self.algorithm)} of {self.algorithm}", str(variant), allowed
            )
        object.__setattr__(self, "variant", variant)
        extra = _EXTRA_OPTIONS.get(self.algorithm, ())
        for name, value in self.options.items():
            if name not in extra:
                raise ParameterError(
                    name,
                    f"the {self.algorithm} algorithm spec",
                    f"one of its options ({', '.join(extra) or 'none'})",
                    value,
                )
            values = _option_values(self.algorithm, name)
            if value not in values:
                raise UnknownNameError(f"{name} of {self.algorithm}", str(value), values)
        object.__setattr__(self, "options", FrozenDict(dict(sorted(self.options.items()))))

    @property
    def cell(self) -> str:
        """The cell label ``algorithm:variant`` of the tidy table."""
        return f"{self.algorithm}:{self.variant}"

    @property
    def is_full_domain(self) -> bool:
        """Whether the algorithm generalizes whole columns (a lattice search)."""
        return self.algorithm in _lattice_algorithms()

    @property
    def reads_numbers(self) -> bool:
        """Whether numeric quasi-identifiers are read as numbers (Mondrian, MDAV...)."""
        return self.algorithm in ("mondrian", "microaggregation")

    def anonymize_options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`anonkit.anonymize` this spec sets."""
        return {_variant_key(self.algorithm): self.variant, **dict(self.options)}

    def to_dict(self) -> dict[str, str]:
        """The spec as a TOML/JSON table (``{"algorithm": ..., <variant key>: ...}``)."""
        return {"algorithm": self.algorithm, **self.anonymize_options()}

    def __hash__(self) -> int:
        return hash((self.algorithm, self.variant, tuple(self.options.items())))

    def __reduce__(self) -> tuple[Any, ...]:
        return (AlgorithmSpec, (self.algorithm, self.variant, dict(self.options)))


def parse_algorithm(entry: AlgorithmSpec | Mapping[str, Any]) -> tuple[AlgorithmSpec, ...]:
    """The specs of one ``algorithms`` entry; a list or ``"all"`` as variant expands.

    Examples
    --------
    >>> [s.cell for s in parse_algorithm({"algorithm": "mondrian", "mode": ["strict", "relaxed"]})]
    ['mondrian:strict', 'mondrian:relaxed']
    >>> len(parse_algorithm({"algorithm": "greedy_merge", "cost": "all"}))
    7
    """
    if isinstance(entry, AlgorithmSpec):
        return (entry,)
    if not isinstance(entry, Mapping) or "algorithm" not in entry:
        raise ParameterError("algorithms", OWNER, "a list of tables with an 'algorithm' key", entry)
    algorithm = entry["algorithm"]
    if not isinstance(algorithm, str):
        raise ParameterError("algorithm", "an algorithm spec", "a string", algorithm)
    key = _variant_key(algorithm)
    options = {name: value for name, value in entry.items() if name not in ("algorithm", key)}
    raw = entry.get(key, "")
    if raw == "all":
        wanted: list[object] = list(_variants(algorithm))
    elif isinstance(raw, (list, tuple)):
        wanted = list(raw)
    else:
        wanted = [raw]
    if not wanted:
        raise ParameterError(key, f"the {algorithm} algorithm spec", "a non-empty list", raw)
    out = []
    for variant in wanted:
        if not isinstance(variant, str):
            raise ParameterError(key, f"the {algorithm} algorithm spec", "a string", variant)
        out.append(AlgorithmSpec(algorithm, variant, FrozenDict(dict(options))))
    return tuple(out)


def default_algorithms(
    numeric: Sequence[str], quasi_identifiers: Sequence[str] | None = None
) -> tuple[AlgorithmSpec, ...]:
    """The default algorithm set (the issue's): ``flash`` minimizing ``loss``, strict
    Mondrian, greedy merging under each of the 7 costs and, when every quasi-identifier is
    numeric, MDAV microaggregation. (With categorical quasi-identifiers a study's
    microaggregation releases them at the root of their hierarchy, one value per column,
    and aggregates the numeric ones (:mod:`anonkit.study.microaggregation`); that setting
    stays out of the default, so that default grids do not grow: list it explicitly, as
    the seed000 study does.)

    Examples
    --------
    >>> [s.cell for s in default_algorithms(["age"])][:3]
    ['flash:loss', 'mondrian:strict', 'greedy_merge:distortion']
    >>> len(default_algorithms([])), len(default_algorithms(["age"], ["age", "sex"]))
    (9, 9)
    >>> default_algorithms(["age", "hours"], ["age", "hours"])[-1].cell
    'microaggregation:mdav'
    """
    specs = [AlgorithmSpec("flash", "loss"), AlgorithmSpec("mondrian", "strict")]
    specs += parse_algorithm({"algorithm": "greedy_merge", "cost": "all"})
    qi = numeric if quasi_identifiers is None else quasi_identifiers
    if numeric and set(qi) <= set(numeric):
        specs.append(AlgorithmSpec("microaggregation", "mdav"))
    return tuple(specs)
