"""The app's first four steps as plain functions: load, roles, hierarchies, settings.

Each function calls the library's public API and returns plain values the page shows;
nothing here imports Shiny, so the steps are tested without a browser. Errors are the
library's own (:class:`~anonkit.exceptions.AnonkitError`), whose messages are written for
users; the page shows them next to the field that caused them.

Load
    :func:`load_table` reads a CSV/Parquet file the way ``anonkit init`` does
    (:func:`anonkit.safety.reading.read_for_starter`: separator sniffed, trimming and
    missing tokens detected unless given); :func:`load_adult` the bundled UCI Adult.
Roles
    :func:`propose` profiles the table and proposes roles and hierarchy builders
    (:func:`anonkit.safety.starter.starter_config`); :func:`role_leaks` runs the leak check
    (:func:`anonkit.safety.leaks.find_leaks`) on the roles the user chose.
Hierarchies
    :func:`parse_builder` (of :mod:`anonkit.app.fields`) reads the builder parameters
    typed in the page (a TOML inline table body such as ``widths = [5, 10]``);
    :func:`hierarchy_preview` (:mod:`anonkit.app.preview`) resolves the
    hierarchy on the column's values (:func:`anonkit.core.resolve.resolve_hierarchy`, the
    path ``anonymize`` takes) and shows a few values at every level.
Privacy and utility
    :class:`Settings` holds k, the suppression limit, extra models by registry name,
    algorithm and metric; :func:`resolve_algorithm` turns ``"auto"`` into a name.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import polars as pl

from anonkit import estimators
from anonkit._validation import check_int, check_real, init_parameters, validate
from anonkit.api import ALGORITHMS, ESTIMATOR_ALGORITHMS, FAMILY_KEYWORDS
from anonkit.app.fields import builder_text, parse_builder, parse_pairs
from anonkit.app.guard import FieldError
from anonkit.app.model_spec import FIELD_ADVICE, REAL_L_VARIANTS, ModelSpec
from anonkit.app.preview import preview_hierarchy
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import HierarchySpec
from anonkit.core.values import as_text
from anonkit.datasets import ADULT_COLUMNS, adult_path
from anonkit.estimators.given import OWN_METRICS
from anonkit.exceptions import ParameterError, UnknownNameError
from anonkit.metrics.generalization import METRICS
from anonkit.models.base import PrivacyModel
from anonkit.models.registry import MODELS
from anonkit.safety.leaks import Leak, find_leaks
from anonkit.safety.reading import ReadSettings, read_for_starter
from anonkit.safety.starter import ROLES, Starter, starter_config

__all__ = [
    "ALGORITHM_CHOICES",
    "ALGORITHM_OPTIONS",
    "AUTO_LATTICE_LIMIT",
    "ESTIMATOR_OPTIONS",
    "ROLES",
    "Loaded",
    "NUMERIC_ALGORITHMS",
    "OPTION_ALGORITHM",
    "REAL_L_VARIANTS",
    "ModelSpec",
    "Settings",
    "blocking_leaks",
    "check_numeric",
    "check_options",
    "builder_text",
    "default_hierarchies",
    "hierarchy_preview",
    "load_adult",
    "load_table",
    "parse_builder",
    "parse_missing",
    "parse_pairs",
    "propose",
    "resolve_algorithm",
    "role_leaks",
    "role_rows",
    "roles_by_kind",
    "warm_up",
]

#: Algorithms offered in the page: ``auto`` and every name :func:`anonkit.anonymize` takes
#: (each once: the lattice searches hold ``auto`` too).
ALGORITHM_CHOICES: Final = tuple(dict.fromkeys(("auto", *ALGORITHMS)))
#: ``auto`` runs Flash (optimal) up to this many lattice nodes, Mondrian above.
AUTO_LATTICE_LIMIT: Final = 1_000_000
#: Options of the local-recoding algorithms (keywords of :func:`anonkit.anonymize`, keys
#: of the TOML ``[search]`` section), each with the algorithm that reads it.
OPTION_ALGORITHM: Final = FAMILY_KEYWORDS
#: Parameters of an estimator that Other options does not give: the page sets the
#: privacy, the app the progress and the leak check, and the app works in memory.
_NOT_OPTIONS: Final = ("privacy", "leak_check", "progress", "engine")
#: Per algorithm that is one estimator (SafePub, (k, ε)-anonymity, ...), its own parameters
#: that Other options takes (``options`` of :func:`anonkit.anonymize`, ``[search]
#: options`` of the TOML).
ESTIMATOR_OPTIONS: Final = {
    algorithm: tuple(p for p in init_parameters(getattr(estimators, name)) if p not in _NOT_OPTIONS)
    for algorithm, name in ESTIMATOR_ALGORITHMS.items()
}
#: Every key Other options takes, with some algorithm.
ALGORITHM_OPTIONS: Final = tuple(
    dict.fromkeys([*OPTION_ALGORITHM, *(p for own in ESTIMATOR_OPTIONS.values() for p in own)])
)
#: The algorithms that read quasi-identifiers as numbers (``numeric``): Mondrian splits
#: them at the median and releases ranges or means; microaggregation aggregates them.
NUMERIC_ALGORITHMS: Final = ("mondrian", "microaggregation")


def metric_choices(algorithm: str) -> tuple[str, ...]:
    """The metrics ``algorithm`` can minimize, as the page offers them (those of
    :data:`~anonkit.api.OWN_METRICS` in a field of their own, ``<name>_metric``)."""
    return OWN_METRICS.get(algorithm, tuple(METRICS))


# ------------------------------------------------------------------------------ load
@dataclass(frozen=True)
class Loaded:
    """A table read for the app.

    Attributes
    ----------
    frame
        The records (shown only in the page, never logged).
    path
        The file read (for the TOML ``input``).
    name
        The name shown (the uploaded file's own name for uploads).
    read
        How it was read (the ``[read]`` section), from ``read_for_starter``.
    bundled
        True for the bundled Adult data, whose hierarchy files are offered.
    uploaded
        True when the file was uploaded (its path is a temporary copy).
    """

    frame: pl.DataFrame
    path: Path
    name: str
    read: ReadSettings
    bundled: bool = False
    uploaded: bool = False


def parse_missing(text: str | None) -> tuple[str, ...] | None:
    """The missing tokens typed as comma-separated cells (empty cells always count);
    None for a blank field (detected).

    Examples
    --------
    >>> parse_missing("?, NA"), parse_missing("  ")
    (('', '?', 'NA'), None)
    """
    if text is None or not text.strip():
        return None
    return ("", *dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))


def load_table(
    path: str | Path,
    *,
    name: str | None = None,
    separator: str | None = None,
    encoding: str = "utf-8",
    missing: Sequence[str] | None = None,
    strip: bool | None = None,
    decimal_comma: bool | None = None,
    uploaded: bool = False,
) -> Loaded:
    """Read ``path`` as ``anonkit init`` does (what is None is detected).

    Raises
    ------
    InputFileError, InputEncodingError, InputFormatError
        The reader's errors (missing file, undecodable bytes with their line, ragged rows).
    """
    if separator == "\\t":
        separator = "\t"
    frame, read = read_for_starter(
        path, separator=separator or None, encoding=encoding or "utf-8", missing=missing,
        strip=strip, decimal_comma=decimal_comma,
    )  # fmt: skip
    p = Path(path).expanduser().resolve()  # the TOML names it from any folder
    return Loaded(frame, p, name or p.name, read, uploaded=uploaded)


@functools.lru_cache(maxsize=1)
def load_adult() -> Loaded:
    """The bundled UCI Adult extract (its hierarchy files are the default hierarchies).

    Read once per process: the bundled file does not change, and the app reads it when
    it starts (:func:`warm_up`), so that loading it answers at once.
    """
    loaded = load_table(adult_path() / "adult.csv")
    return Loaded(loaded.frame, loaded.path, "adult.csv (bundled)", loaded.read, bundled=True)


def warm_up() -> None:
    """Read the bundled Adult, profile it and check the proposed roles for leaks (all
    kept), so that the app's default source loads and shows its roles at once; meant for
    a background thread at start. A failure is left for the user's own load to report."""
    try:
        adult = load_adult()
        starter = propose(adult)
        role_leaks(adult.frame, {p.column: p.role for p in starter.proposals})
    except Exception:  # noqa: BLE001, S110 - reported when the user loads Adult
        pass


# ------------------------------------------------------------------------------ roles
#: The last few tables profiled, by identity (a table is profiled once however often its
#: pages are shown or it is loaded again).
_PROPOSED: dict[int, tuple[Loaded, Starter]] = {}
_PROPOSED_KEEP: Final = 4
_PROPOSED_LOCK = threading.Lock()


def propose(loaded: Loaded) -> Starter:
    """Profile the table and propose roles and builders (``anonkit init``'s proposals).

    The result is kept for the last :data:`_PROPOSED_KEEP` tables (by identity): the
    profile is the slowest step of a load (about 0.25 s on Adult)."""
    with _PROPOSED_LOCK:
        kept = _PROPOSED.get(id(loaded))
    if kept is not None and kept[0] is loaded:
        return kept[1]
    starter = starter_config(loaded.frame, input=loaded.name, read=loaded.read)
    with _PROPOSED_LOCK:
        _PROPOSED[id(loaded)] = (loaded, starter)
        while len(_PROPOSED) > _PROPOSED_KEEP:
            del _PROPOSED[next(iter(_PROPOSED))]
    return starter


def role_rows(starter: Starter) -> list[dict[str, Any]]:
    """One row per column: kind, distinct values, unique share, proposed role, reason."""
    rows = []
    for proposal in starter.proposals:
        column = starter.profile[proposal.column]
        rows.append(
            {
                "column": proposal.column,
                "kind": column.kind,
                "distinct": column.distinct,
                "unique": column.unique_share,
                "role": proposal.role,
                "why": proposal.why,
            }
        )
    return rows


def roles_by_kind(roles: Mapping[str, str]) -> dict[str, list[str]]:
    """The columns of each role of :data:`ROLES`, in table order.

    Raises
    ------
    UnknownNameError
        If a role is not one of :data:`ROLES`.
    """
    out: dict[str, list[str]] = {role: [] for role in ROLES}
    for column, role in roles.items():
        if role not in out:
            raise UnknownNameError("role", role, list(ROLES))
        out[role].append(column)
    return out


#: The last leak checks, by table identity and roles (going back to roles seen before, or
#: a new session on the bundled Adult, checks nothing again).
_LEAKS: dict[tuple[int, tuple[tuple[str, str], ...]], tuple[pl.DataFrame, list[Leak]]] = {}
_LEAKS_KEEP: Final = 16


def role_leaks(frame: pl.DataFrame, roles: Mapping[str, str]) -> list[Leak]:
    """The leaks of the columns released as they are under ``roles`` (empty without a
    quasi-identifier); the last :data:`_LEAKS_KEEP` checks are kept."""
    by = roles_by_kind(roles)
    qi = by["quasi_identifier"]
    if not qi:
        return []
    key = (id(frame), tuple(roles.items()))
    with _PROPOSED_LOCK:
        kept = _LEAKS.get(key)
    if kept is not None and kept[0] is frame:
        return list(kept[1])
    found = find_leaks(frame, quasi_identifiers=qi, released=by["sensitive"] + by["insensitive"])
    with _PROPOSED_LOCK:
        _LEAKS[key] = (frame, found)
        while len(_LEAKS) > _LEAKS_KEEP:
            del _LEAKS[next(iter(_LEAKS))]
    return list(found)


def blocking_leaks(leaks: Sequence[Leak]) -> list[Leak]:
    """The leaks that stop the run (errors); warnings do not."""
    return [leak for leak in leaks if leak.severity == "error"]


# ------------------------------------------------------------------------ hierarchies
def default_hierarchies(loaded: Loaded, starter: Starter) -> dict[str, HierarchySpec]:
    """Per proposed quasi-identifier: the bundled hierarchy file (Adult) or the proposed
    builder table."""
    out: dict[str, HierarchySpec] = {}
    for proposal in starter.proposals:
        if loaded.bundled and proposal.column in ADULT_COLUMNS:
            out[proposal.column] = adult_path() / f"adult_hierarchy_{proposal.column}.csv"
        elif proposal.hierarchy is not None:
            out[proposal.column] = dict(proposal.hierarchy)
    return out


def hierarchy_preview(
    frame: pl.DataFrame, column: str, spec: HierarchySpec | None, *, rows: int = 8
) -> tuple[Hierarchy, pl.DataFrame]:
    """The hierarchy of ``column`` and a few of its values at every level
    (:func:`anonkit.app.preview.preview_hierarchy`, whose ``values`` it returns).

    The values shown are the most frequent ones (ties by value), one column per level.
    The column is encoded against the hierarchy as the run will encode it, so a value the
    hierarchy lacks, or a missing value, raises the run's error here.

    Raises
    ------
    HierarchyError, ValuesNotInHierarchyError, ParameterError
        What :func:`anonkit.anonymize` would raise for this hierarchy.
    """
    shown = preview_hierarchy(frame, column, spec, rows=rows)
    return shown.hierarchy, shown.values


# --------------------------------------------------------------------------- settings
_SETTINGS: Final = "the privacy settings"
_WHOLE: Final = "enter a whole number of at least 1"


@dataclass(frozen=True)
class Settings:
    """Privacy and utility settings of step 4.

    ``models`` are extra privacy models (ℓ-diversity, t-closeness, k-map, ...);
    ``algorithm`` may be ``"auto"`` (:func:`resolve_algorithm`); ``options`` are the
    local-recoding algorithms' options (:data:`ALGORITHM_OPTIONS`); ``numeric`` the
    quasi-identifiers Mondrian and microaggregation treat as numbers
    (:data:`NUMERIC_ALGORITHMS`, checked by :func:`check_numeric`).
    """

    k: int | None = 5
    suppression_limit: float = 0.05
    models: tuple[ModelSpec, ...] = ()
    algorithm: str = "auto"
    metric: str = "loss"
    options: Mapping[str, Any] = field(default_factory=dict)
    numeric: tuple[str, ...] = ()

    def check(self) -> list[PrivacyModel]:
        """Validate and build the models (k first).

        Raises
        ------
        ParameterError, UnknownNameError
            Naming the bad setting, as the API would.
        """
        if self.algorithm == "safepub":
            self._check_safepub()
        if self.k is not None:
            try:
                check_int(self.k, "k", _SETTINGS, low=1)
            except ParameterError:
                raise FieldError("k", f"{_WHOLE}, or 0 for off", self.k, parameter="k") from None
        try:
            check_real(self.suppression_limit, "suppression_limit", _SETTINGS, low=0, high=1)
        except ParameterError:
            raise FieldError(
                "Suppression limit", "enter a percentage between 0 and 100", self._percent(),
                parameter="suppression_limit",
            ) from None  # fmt: skip
        if self.algorithm not in ALGORITHM_CHOICES:
            raise UnknownNameError("algorithm", self.algorithm, list(ALGORITHM_CHOICES))
        if self.metric not in (choices := metric_choices(self.algorithm)):
            raise UnknownNameError("metric", self.metric, list(choices))
        if self.numeric and self.algorithm not in NUMERIC_ALGORITHMS:
            raise ParameterError(
                "numeric", "the privacy settings",
                f"empty with {self.algorithm} (numbers are split or aggregated by "
                f"{' and '.join(NUMERIC_ALGORITHMS)} only)", list(self.numeric),
            )  # fmt: skip
        check_options(self.options, self.algorithm)
        models = [m.build() for m in self.models]
        if self.k is None and not models and self.algorithm != "safepub":
            raise FieldError("k", f"{_WHOLE}; 0 (off) needs another privacy model", None)
        return models

    def _percent(self) -> object:
        """The suppression limit as the percentage typed."""
        share = self.suppression_limit
        return round(share * 100, 10) if isinstance(share, int | float) else share

    def _check_safepub(self) -> None:
        """Refuse what SafePub would not use (a :class:`FieldError` naming the field):
        it derives its k from epsilon and delta, suppresses every class below that k
        whatever the limit, and takes no model."""
        if self.k is not None:
            raise FieldError(
                "k", "set it to 0 (off): SafePub derives its k from epsilon and delta, "
                "given in Other options", self.k, parameter="k",
            )  # fmt: skip
        if self.suppression_limit:
            raise FieldError(
                "Suppression limit", "set it to 0: SafePub removes every group smaller than "
                "the k it derives, whatever the limit", self._percent(),
                parameter="suppression_limit",
            )  # fmt: skip
        for model in self.models:
            fix = "set it to 0 (off)" if model.label in FIELD_ADVICE else "remove the line"
            raise FieldError(
                model.label or model.name, f"{fix}, or choose another algorithm: SafePub "
                "takes no privacy model besides its (epsilon, delta)-differential privacy",
                parameter=model.name,
            )  # fmt: skip


def check_options(options: Mapping[str, Any], algorithm: str) -> None:
    """Refuse an option that is not one of :data:`ALGORITHM_OPTIONS`, or that
    ``algorithm`` does not read (``"auto"``: checked once it is resolved); an
    estimator's own parameters (in ``options``, as
    :func:`anonkit.app.steps.privacy.estimator_options` puts them) are checked as the
    estimator checks them.

    Raises
    ------
    UnknownNameError
        For an unknown option.
    FieldError
        For an option of another algorithm, or a bad parameter of the estimator (named
        in the page's words).
    """
    unknown = [key for key in options if key not in ALGORITHM_OPTIONS]
    if unknown and not (unknown == ["options"] and algorithm in ESTIMATOR_OPTIONS):
        raise UnknownNameError("algorithm option", unknown[0], list(ALGORITHM_OPTIONS))
    for key in options:
        owners = (
            [OPTION_ALGORITHM[key]]
            if key in OPTION_ALGORITHM
            else [a for a, own in ESTIMATOR_OPTIONS.items() if key in own]
        )
        if key == "options":
            _check_estimator_options(options[key], algorithm)
        elif algorithm in owners and algorithm in ESTIMATOR_OPTIONS:
            raise ParameterError(
                "options", _SETTINGS, f"a table of {algorithm}'s parameters holding {key}",
                dict(options),
            )  # fmt: skip
        elif algorithm not in owners and not (algorithm == "auto" and key in OPTION_ALGORITHM):
            raise FieldError(
                "Other options", f"{key} is an option of {' and '.join(owners)}, not of "
                f"{algorithm}; remove it or choose {' or '.join(owners)}", parameter=key,
            )  # fmt: skip


def _check_estimator_options(given: Any, algorithm: str) -> None:
    """Refuse a parameter that ``algorithm``'s estimator does not take, or a value it
    refuses (:data:`ESTIMATOR_OPTIONS`)."""
    own = ESTIMATOR_OPTIONS[algorithm]
    if not isinstance(given, Mapping):
        raise ParameterError("options", _SETTINGS, f"a table of {algorithm}'s parameters", given)
    for key in given:
        if key not in own:
            fix = f"; its parameters are {', '.join(own)}" if own else ", which takes none"
            raise FieldError(
                "Other options", f"{key} is not a parameter of {algorithm}{fix}", parameter=key
            )
    cls = getattr(estimators, ESTIMATOR_ALGORITHMS[algorithm])
    try:
        validate(given, getattr(cls, "_parameter_constraints", {}), cls.__name__)
    except ParameterError as err:
        raise FieldError(
            "Other options", f"{err.parameter} must be {err.expected}", err.got,
            parameter=err.parameter,
        ) from None  # fmt: skip


def check_numeric(
    frame: pl.DataFrame, numeric: Sequence[str], quasi_identifiers: Sequence[str]
) -> None:
    """Refuse numeric columns that are not quasi-identifiers or hold non-numbers (counted,
    never shown), before the run would.

    Raises
    ------
    ParameterError
        Naming the column.

    Examples
    --------
    >>> try:
    ...     check_numeric(pl.DataFrame({"age": ["31", "x"]}), ["age"], ["age"])
    ... except ValueError as err:
    ...     print(str(err).split("only (")[1].split(";")[0])
    'age' holds 1 value(s) that are not numbers
    """
    for column in numeric:
        if column not in quasi_identifiers:
            raise ParameterError(
                "numeric", "the privacy settings", "quasi-identifiers only", list(numeric)
            )
        values = frame.get_column(column).drop_nulls()
        text = as_text(values).str.strip_chars()
        bad = int(text.cast(pl.Float64, strict=False).is_null().sum())
        if bad:
            raise ParameterError(
                "numeric", "the privacy settings", "quasi-identifiers holding numbers only "
                f"({column!r} holds {bad} value(s) that are not numbers; unmark it or give it "
                "a hierarchy)", list(numeric),
            )  # fmt: skip


def model_names() -> list[str]:
    """Registry names of the privacy models (k-anonymity has its own field)."""
    return [name for name in MODELS if name != "k_anonymity"]


def resolve_algorithm(algorithm: str, heights: Sequence[int]) -> str:
    """``algorithm``, with ``"auto"`` replaced by ``"flash"`` (the optimal full-domain
    search) when the lattice has at most :data:`AUTO_LATTICE_LIMIT` nodes, else
    ``"mondrian"`` (local recoding, whose time does not grow with the lattice).

    ``heights`` are the hierarchies' numbers of levels.

    Examples
    --------
    >>> resolve_algorithm("auto", [5, 3]), resolve_algorithm("auto", [40] * 5)
    ('flash', 'mondrian')
    """
    if algorithm != "auto":
        return algorithm
    size = math.prod(max(h, 1) for h in heights)
    return "flash" if size <= AUTO_LATTICE_LIMIT else "mondrian"
