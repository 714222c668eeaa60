"""What ``anonkit evaluate`` and ``anonkit check`` share: the measurement sections of a
run configuration (:func:`read_measure_config`), the suppression limit under which
records at ``*`` count as suppressed (:func:`starred_limit`, ``--suppression``), and the
hierarchy specs and population a measurement of the models needs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from anonkit._frozen import FrozenDict

if TYPE_CHECKING:
    from anonkit.models.base import PrivacyModel

__all__ = [
    "MEASURE_SECTIONS",
    "MeasureConfig",
    "SuppressionLimitOption",
    "level_specs",
    "needs_population",
    "read_measure_config",
    "starred_limit",
    "starred_note",
]

#: Sections of a run configuration that a measurement reads.
MEASURE_SECTIONS = ("read", "attributes", "hierarchies", "privacy", "release")


@dataclass(frozen=True)
class MeasureConfig:
    """What a measurement reads from a run configuration.

    Attributes
    ----------
    path
        The configuration file.
    quasi_identifiers, sensitive, numeric
        Column roles from ``[attributes]`` (quasi-identifiers default to the keys of
        ``[hierarchies]``, as for ``anonkit anonymize``).
    hierarchies
        Hierarchy specs by column (file paths resolved against the file's folder, or
        builder tables).
    k
        ``[privacy] k`` when the file gives it.
    models
        The requested privacy models: ``KAnonymity(k)`` when ``k`` is given, then
        ``[privacy] models``.
    population
        ``[privacy] population``, the population table's path.
    read
        ``[read]`` options for the original table (:func:`anonkit.io.tables.read_table`).
    suppression_limit
        ``[privacy] suppression_limit`` when the file gives it (``None`` otherwise): up to
        that share, records at ``*`` everywhere are suppressed ones, beyond it a class
        (:func:`starred_limit`, :func:`~anonkit.metrics.classes.starred_suppressed`).
    csv_formulas
        ``[release] csv_formulas``: ``"escape"`` (the default; a CSV release is read with
        anonkit's formula escapes undone) or ``"keep"`` (its cells were written raw).
    """

    path: Path
    quasi_identifiers: tuple[str, ...]
    sensitive: tuple[str, ...] = ()
    numeric: tuple[str, ...] = ()
    hierarchies: Mapping[str, Any] = field(default_factory=lambda: FrozenDict({}))
    k: int | None = None
    models: tuple[PrivacyModel, ...] = ()
    population: Path | None = None
    read: Mapping[str, Any] = field(default_factory=lambda: FrozenDict({}))
    suppression_limit: float | None = None
    csv_formulas: str = "escape"


def read_measure_config(
    path: Path, *, quasi_identifiers: Sequence[str] | None = None
) -> MeasureConfig:
    """Read the measurement sections of a TOML run configuration.

    The sections are validated by :func:`anonkit.config.parse_config` exactly as for
    ``anonkit anonymize``; sections a measurement does not use are not read.

    Parameters
    ----------
    path
        The configuration file.
    quasi_identifiers
        Quasi-identifiers that replace those of the file (``anonkit check --qi``).

    Raises
    ------
    InputFileError
        If the file is missing or unreadable.
    ConfigError
        If it is not TOML or its sections are invalid.
    """
    from anonkit.config import parse_config
    from anonkit.io.toml import read_toml
    from anonkit.models import KAnonymity

    p = Path(path)
    data = read_toml(p)
    part: dict[str, Any] = {key: data[key] for key in MEASURE_SECTIONS if key in data}
    # parse_config wants what a run needs: an input (not read here) and a privacy target
    part["input"] = data["input"] if isinstance(data.get("input"), str) else p.name
    privacy = part.get("privacy", {})
    requested_k = isinstance(privacy, dict) and "k" in privacy
    if isinstance(privacy, dict) and not requested_k and not privacy.get("models"):
        part["privacy"] = {**privacy, "k": 1}
    if quasi_identifiers is not None:
        attrs = part.get("attributes", {})
        if isinstance(attrs, dict):
            part["attributes"] = {**attrs, "quasi_identifiers": list(quasi_identifiers)}
    cfg = parse_config(part, path=p.resolve())
    k = cfg.k if requested_k else None
    models: list[PrivacyModel] = [KAnonymity(k)] if k is not None else []
    models += list(getattr(cfg, "privacy", ()))
    return MeasureConfig(
        path=p,
        quasi_identifiers=tuple(cfg.quasi_identifiers),
        sensitive=tuple(cfg.sensitive),
        numeric=tuple(getattr(cfg, "numeric", ())),
        hierarchies=FrozenDict(dict(cfg.hierarchies)),
        k=k,
        models=tuple(models),
        population=getattr(cfg, "population", None),
        read=FrozenDict(cfg.read_kwargs()),
        suppression_limit=(
            float(cfg.suppression_limit)
            if isinstance(privacy, dict) and "suppression_limit" in privacy
            else None
        ),
        csv_formulas=cfg.csv_formulas,
    )


#: ``--suppression`` of ``anonkit check`` and ``anonkit evaluate``.
SuppressionLimitOption = Annotated[
    float | None,
    typer.Option(
        "--suppression",
        metavar="SHARE",
        help="The release's suppression limit, a share of records (0 to 1): up to that many "
        "records at '*' in every quasi-identifier count as suppressed, more form one class "
        "(default: \\[privacy] suppression_limit, else 0: they form one class).",
    ),
]


def starred_limit(option: float | None, config: MeasureConfig | None, command: str) -> float:
    """The share of records a measured release may have suppressed, which says how its
    records at ``*`` in every quasi-identifier are read
    (:func:`~anonkit.metrics.classes.starred_suppressed`): ``--suppression``, else
    ``[privacy] suppression_limit``, else 0.

    Told nothing, they are one class of their size, judged like any other: that is what an
    attacker sees, and what ``anonkit anonymize`` releases unless its configuration allows
    suppression (its default limit is 0). Read as suppressed records instead, a release
    generalized to the top would show no class, no risk and an achieved k of 0, and the
    sensitive values of such a class would go unjudged.

    Raises
    ------
    ParameterError
        If ``option`` is not a share between 0 and 1 (no typer range: its ``[0.0<=x<=1.0]``
        would cut the option names of ``--help`` on an 80-column terminal).

    Examples
    --------
    >>> starred_limit(None, None, "check"), starred_limit(0.05, None, "check")
    (0.0, 0.05)
    """
    from anonkit._validation import check_real

    if option is not None:
        return check_real(option, "--suppression", command, low=0, high=1)
    if config is not None and config.suppression_limit is not None:
        return config.suppression_limit
    return 0.0


def starred_note(n_star: int, limit: float) -> str:
    """The note that ``n_star`` records at ``*`` everywhere are read as one class (under the
    suppression limit ``limit``), and how to say they are suppressed ones."""
    what = f"{n_star:,} record(s) show '*' in every quasi-identifier"
    if limit:
        return (
            f"{what}, more than the suppression limit ({limit:.2%}) allows; they are read "
            "as one class of fully generalized records, judged like any other."
        )
    return (
        f"{what}; they are read as one class of fully generalized records, judged like any "
        "other. If the release suppressed them, give its suppression limit (--suppression "
        "SHARE, or suppression_limit in the configuration's privacy section)."
    )


def level_specs(
    config: MeasureConfig | None, sensitive: Sequence[str], *, with_qi: bool
) -> dict[str, Any]:
    """Hierarchy specs for :func:`~anonkit.metrics.levels.released_classes`: the sensitive
    attributes' (hierarchical t-closeness) and, for population matching, the
    quasi-identifiers' (not the numeric ones)."""
    if config is None:
        return {}
    wanted = [*sensitive, *(config.quasi_identifiers if with_qi else ())]
    return {
        c: config.hierarchies[c]
        for c in wanted
        if c in config.hierarchies and c not in config.numeric
    }


def needs_population(models: Sequence[PrivacyModel]) -> bool:
    from anonkit.models.base import POPULATION_COUNT

    return any(POPULATION_COUNT in m.requires for m in models)
