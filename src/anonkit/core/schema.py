"""Attribute roles and their validation."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from anonkit._validation import Keyed, OrNone, check, check_choice, check_names
from anonkit.core.resolve import HierarchySpec, check_hierarchy_kinds
from anonkit.exceptions import ParameterError, UndeclaredColumnsError, UnknownColumnError


class AttributeRole(enum.Enum):
    """What a column is for.

    - ``IDENTIFYING``: names a person directly (name, SSN); removed from the release.
    - ``QUASI_IDENTIFYING``: could be linked with outside data (age, zip); generalized.
    - ``SENSITIVE``: what must not be learned about a person (diagnosis); kept, and used
      by privacy models such as l-diversity.
    - ``INSENSITIVE``: anything else; kept as is.
    """

    IDENTIFYING = "identifying"
    QUASI_IDENTIFYING = "quasi_identifying"
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"


#: What happens to columns given no role: an error (the default), kept as is, or removed.
OTHERS_MODES = ("error", "keep", "drop")
#: Column names starting so are anonkit's own working columns; a table may not have one.
RESERVED_PREFIX = "__anonkit"


@dataclass(frozen=True)
class Schema:
    """The role of every column of a table.

    ``dropped`` lists the columns that had no role and were removed (``others="drop"``);
    they have the ``IDENTIFYING`` role (removed) in :attr:`roles`.
    """

    roles: tuple[tuple[str, AttributeRole], ...]
    dropped: tuple[str, ...] = ()

    @classmethod
    def build(
        cls,
        columns: Sequence[str],
        *,
        quasi_identifiers: str | Iterable[str],
        identifying: str | Iterable[str] = (),
        sensitive: str | Iterable[str] = (),
        insensitive: str | Iterable[str] = (),
        others: str | None = "keep",
        owner: str = "anonymize",
    ) -> Schema:
        """Assign roles; ``others`` decides for the columns not named. Each role is a
        column name or a list of them; errors name ``owner``, the function called.

        ``others`` is ``"error"`` (or ``None``: raise :class:`UndeclaredColumnsError`
        naming them), ``"keep"`` (insensitive, released as is) or ``"drop"`` (removed).

        Raises
        ------
        UnknownColumnError
            If a named column is not in ``columns``.
        ParameterError
            If a role is not column names, no quasi-identifier is given, a column has two
            roles or ``others`` is not one of :data:`OTHERS_MODES`.
        UndeclaredColumnsError
            If ``others`` is ``"error"`` and some column has no role.

        Examples
        --------
        >>> s = Schema.build(["age", "zip", "note"], quasi_identifiers=["age", "zip"],
        ...                  others="drop")
        >>> s.columns(AttributeRole.IDENTIFYING), s.dropped
        (['note'], ('note',))
        """
        qi, ids, sens, ins = (
            list(check_names(names, keyword, owner))
            for keyword, names in (
                ("quasi_identifiers", quasi_identifiers),
                ("identifying", identifying),
                ("sensitive", sensitive),
                ("insensitive", insensitive),
            )
        )
        mode = "error" if others is None else check_choice(others, "others", owner, OTHERS_MODES)
        if not qi:
            raise ParameterError("quasi_identifiers", owner, "a non-empty list of column names", qi)
        reserved = [c for c in columns if c.startswith(RESERVED_PREFIX) or _pattern(c)]
        if reserved:
            raise ParameterError(
                reserved[0],
                owner,
                f"a column name other than '*' that does not start with {RESERVED_PREFIX!r} "
                "and is not '^...$' (anonkit names its own working columns so, and polars "
                "reads '*' as every column and '^...$' as a pattern; rename the column)",
                reserved[0],
            )
        unknown = [c for c in dict.fromkeys(qi + ids + sens + ins) if c not in columns]
        if unknown:
            raise UnknownColumnError(unknown, columns)
        seen: dict[str, AttributeRole] = {}
        for keyword, names, role in (
            ("quasi_identifiers", qi, AttributeRole.QUASI_IDENTIFYING),
            ("identifying", ids, AttributeRole.IDENTIFYING),
            ("sensitive", sens, AttributeRole.SENSITIVE),
            ("insensitive", ins, AttributeRole.INSENSITIVE),
        ):
            for name in names:
                if name in seen and seen[name] is not role:
                    roles = f"{seen[name].value} and {role.value}"
                    raise ParameterError(name, owner, "given one role only", roles)
                if name in seen:
                    raise ParameterError(keyword, owner, "a list without duplicates", names)
                seen[name] = role
        rest = [c for c in columns if c not in seen]
        if rest and mode == "error":
            raise UndeclaredColumnsError(rest)
        fallback = AttributeRole.IDENTIFYING if mode == "drop" else AttributeRole.INSENSITIVE
        return cls(
            tuple((c, seen.get(c, fallback)) for c in columns),
            dropped=tuple(rest) if mode == "drop" else (),
        )

    def columns(self, role: AttributeRole) -> list[str]:
        return [c for c, r in self.roles if r is role]

    def released_as_is(self) -> list[str]:
        """Columns published unchanged: sensitive and insensitive ones, in table order."""
        keep = (AttributeRole.SENSITIVE, AttributeRole.INSENSITIVE)
        return [c for c, r in self.roles if r in keep]


#: What the ``hierarchies`` keyword must be.
HIERARCHIES = "a mapping of column name to hierarchy (a Hierarchy, a file path, a spec or rows)"


@dataclass(frozen=True)
class Columns:
    """What the keywords of :meth:`Estimator.fit <anonkit.estimators.base.Estimator.fit>`
    say the columns are."""

    quasi_identifiers: list[str]
    specs: dict[str, HierarchySpec]
    identifying: Sequence[str] = ()
    sensitive: Sequence[str] = ()
    insensitive: Sequence[str] = ()
    others: str | None = None
    numeric: list[str] = field(default_factory=list)
    #: The function the keywords were given to, which errors name.
    owner: str = "anonymize"

    @classmethod
    def given(
        cls,
        owner: str,
        quasi_identifiers: str | Iterable[str],
        hierarchies: Mapping[str, HierarchySpec] | None = None,
        identifying: str | Iterable[str] = (),
        sensitive: str | Iterable[str] = (),
        insensitive: str | Iterable[str] = (),
        others: str | None = None,
        numeric: str | Iterable[str] = (),
    ) -> Columns:
        """The fit keywords of ``owner``, checked: each role (and ``numeric``) a column
        name, which is one column, or a list of them; ``hierarchies`` a mapping or ``None``.

        Raises
        ------
        ParameterError
            Naming the first keyword that is not so, and ``owner``.

        Examples
        --------
        >>> Columns.given("X.fit", "age", None, sensitive="disease").sensitive
        ['disease']
        """

        def names(value: object, keyword: str) -> list[str]:
            return list(check_names(value, keyword, owner))

        qi = names(quasi_identifiers, "quasi_identifiers")
        ids, sens = names(identifying, "identifying"), names(sensitive, "sensitive")
        ins, num = names(insensitive, "insensitive"), names(numeric, "numeric")
        check(hierarchies, OrNone(Keyed(HIERARCHIES)), "hierarchies", owner)
        check_hierarchy_kinds(hierarchies or {}, owner)
        return cls(qi, dict(hierarchies or {}), ids, sens, ins, others, numeric=num, owner=owner)

    def schema(self, names: Sequence[str], wanted: Sequence[str]) -> Schema:
        """Every column's role among ``names``; the attributes the models protect
        (``wanted``) are sensitive even when not declared so.

        Raises
        ------
        UndeclaredColumnsError, ParameterError
            As :meth:`Schema.build`.
        """
        return Schema.build(
            names,
            quasi_identifiers=self.quasi_identifiers,
            identifying=self.identifying,
            sensitive=list(dict.fromkeys([*self.sensitive, *wanted])),
            insensitive=[c for c in self.insensitive if c not in wanted],
            others=self.others,
            owner=self.owner,
        )


def _pattern(name: str) -> bool:
    """Whether polars reads the column name ``name`` as more than its own name: ``*``
    (every column) or ``^...$`` (a regular expression)."""
    return name == "*" or (len(name) > 1 and name.startswith("^") and name.endswith("$"))
