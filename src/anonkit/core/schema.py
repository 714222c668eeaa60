"""Attribute roles and their validation."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from anonkit.exceptions import ParameterError, UnknownColumnError


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


@dataclass(frozen=True)
class Schema:
    """The role of every column of a table."""

    roles: tuple[tuple[str, AttributeRole], ...]

    @classmethod
    def build(
        cls,
        columns: Sequence[str],
        *,
        quasi_identifiers: Iterable[str],
        identifying: Iterable[str] = (),
        sensitive: Iterable[str] = (),
    ) -> Schema:
        """Assign roles; columns not named are insensitive.

        Raises
        ------
        UnknownColumnError
            If a named column is not in ``columns``.
        ParameterError
            If no quasi-identifier is given or a column has two roles.
        """
        qi, ids, sens = list(quasi_identifiers), list(identifying), list(sensitive)
        if isinstance(quasi_identifiers, str):
            qi = [quasi_identifiers]
        if not qi:
            raise ParameterError(
                "quasi_identifiers", "anonymize", "a non-empty list of column names", qi
            )
        unknown = [c for c in dict.fromkeys(qi + ids + sens) if c not in columns]
        if unknown:
            raise UnknownColumnError(unknown, columns)
        seen: dict[str, AttributeRole] = {}
        for names, role in (
            (qi, AttributeRole.QUASI_IDENTIFYING),
            (ids, AttributeRole.IDENTIFYING),
            (sens, AttributeRole.SENSITIVE),
        ):
            for name in names:
                if name in seen and seen[name] is not role:
                    raise ParameterError(
                        name,
                        "the attribute roles",
                        "given one role only",
                        f"{seen[name].value} and {role.value}",
                    )
                if name in seen:
                    raise ParameterError(
                        role.value, "anonymize", "a list without duplicates", names
                    )
                seen[name] = role
        return cls(tuple((c, seen.get(c, AttributeRole.INSENSITIVE)) for c in columns))

    def columns(self, role: AttributeRole) -> list[str]:
        return [c for c, r in self.roles if r is role]
