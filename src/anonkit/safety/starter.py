"""A commented starter configuration for ``anonkit anonymize``, proposed from a profile.

:func:`propose_roles` gives every column one role with a one-line reason, and every
quasi-identifier a hierarchy builder table; :func:`starter_config` writes them as TOML
(the format of :mod:`anonkit.config`) for a person to read and edit.

Rules, first match wins:

1. no value at all: insensitive;
2. values that look like direct identifiers (e-mail, phone, SSN, IBAN, card numbers), or a
   name such as ``name``, ``email``, ``phone``, ``ssn``, ``id``: identifying (removed);
   so is free text (sentences, :attr:`~anonkit.safety.profile.ColumnProfile.free_text`),
   whatever the column is called: notes name people;
3. near-unique (at least one distinct value per two records): dates and columns with a
   demographic name (rule 5) become quasi-identifiers (generalized), anything else
   identifying (a survey weight such as ``fnlwgt``, a serial number, free text);
4. a name such as ``salary``, ``income``, ``diagnosis``, ``disease``, ``target``,
   ``class``, ``label``, ``outcome``: sensitive;
5. a demographic name (``age``, ``sex``, ``gender``, ``race``, ``marital``, ``education``,
   ``zip``, ``postcode``, ``birth``, ``country``, ``city``, ``state``, ``region``,
   ``religion``, ``workclass``, ...): quasi-identifier;
6. anything else: quasi-identifier, to check. Fail closed: a column kept as it stands
   beside generalized ones can single people out (the raw UCI Adult file's occupation,
   relationship and working hours, kept, left 12,842 of 32,561 records unique), while
   one generalized that needed not be costs only detail.

Then every kept column that determines a quasi-identifier (the leak check's rule,
:func:`anonkit.safety.leaks.dependency_strength`) becomes a quasi-identifier too, since
releasing it would give the quasi-identifier's original values back.

Hierarchies: intervals for numbers (widths 1, 2 or 5 times a power of ten, about a
twentieth of the range, doubling up to a quarter of it), the dates builder for dates,
masking for fixed-length codes, suppression for the rest. Each proposed table is built
on the column's values; one that does not build falls back to suppression.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Final

import polars as pl

from anonkit._validation import check_int, check_real
from anonkit.core.hierarchy_builders import build_hierarchy
from anonkit.exceptions import AnonkitError
from anonkit.safety.profile import ColumnProfile, TableProfile, profile_table
from anonkit.safety.reading import ReadSettings

__all__ = [
    "ROLES",
    "Proposal",
    "Starter",
    "propose_roles",
    "starter_config",
    "toml_key",
    "toml_string",
    "toml_value",
]

#: Roles, in the order the configuration lists them.
ROLES: Final = ("quasi_identifier", "identifying", "sensitive", "insensitive")
_ROLE_KEYS: Final = {
    "quasi_identifier": "quasi_identifiers",
    "identifying": "identifying",
    "sensitive": "sensitive",
    "insensitive": "insensitive",
}
_ID_TOKENS = {
    "name", "firstname", "lastname", "surname", "fullname", "forename", "email", "mail",
    "phone", "telephone", "tel", "mobile", "fax", "ssn", "passport", "iban", "address",
    "street", "id", "uuid", "guid", "mrn", "ip",
}  # fmt: skip
#: Who a record is about: a column named so alone (``patient``, ``Customer``) holds their
#: name or number, and so does one named so with an id suffix written as one word
#: (``PATIENTID``, ``customerno``).
_ENTITIES = (
    "patient", "person", "customer", "client", "employee", "member", "user", "account",
    "subject", "student", "citizen", "resident", "visitor", "applicant", "respondent",
    "participant", "donor", "insured", "policyholder", "holder", "owner", "contact",
)  # fmt: skip
_ENTITY_ID = re.compile(rf"(?:{'|'.join(_ENTITIES)})(?:id|no|nr|num|number|name|key|code)?")
_SENSITIVE_TOKENS = {"class", "label", "target", "outcome", "y"}
_SENSITIVE_PARTS = ("salary", "income", "wage", "earning", "diagnos", "disease", "illness")
_QI_TOKENS = {"age", "sex", "race", "zip", "dob", "plz", "city", "state", "town"}
_QI_PARTS = (
    "gender", "ethnic", "marital", "educat", "zipcode", "postcode", "postal", "birth",
    "country", "national", "citizen", "county", "region", "religio", "workclass",
    "language",
)  # fmt: skip


@dataclass(frozen=True)
class Proposal:
    """The proposed role of one column, why, and its hierarchy if it is a quasi-identifier."""

    column: str
    role: str
    why: str
    hierarchy: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Starter:
    """A starter configuration: the profile, the proposals and the TOML text."""

    profile: TableProfile
    proposals: tuple[Proposal, ...]
    text: str

    def role(self, column: str) -> str:
        """The proposed role of ``column``."""
        for proposal in self.proposals:
            if proposal.column == column:
                return proposal.role
        raise KeyError(column)


# -------------------------------------------------------------------------- proposals
def _tokens(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [t for t in re.split(r"[^a-z0-9]+", spaced.lower()) if t]


def _name_role(name: str) -> str | None:
    tokens = _tokens(name)
    joined = "".join(tokens)
    if any(t in _ID_TOKENS for t in tokens) or joined in _ID_TOKENS:
        return "identifying"
    if _ENTITY_ID.fullmatch(joined):
        return "identifying"
    if any(t in _SENSITIVE_TOKENS for t in tokens) or any(p in joined for p in _SENSITIVE_PARTS):
        return "sensitive"
    if any(t in _QI_TOKENS for t in tokens) or any(p in joined for p in _QI_PARTS):
        return "quasi_identifier"
    return None


def _first_role(column: ColumnProfile) -> tuple[str, str]:
    if column.kind == "empty":
        return "insensitive", "no values at all"
    if column.identifier is not None:
        share = column.identifier_share or 0.0
        return "identifying", f"values look like {column.identifier} ({share:.0%}); removed"
    by_name = _name_role(column.name)
    if by_name == "identifying":
        why = "the name suggests a direct identifier; removed"
        if 1 < column.distinct <= 0.9 * column.records:
            why += (
                f"; {column.distinct:,} values over {column.records:,} records: if it names "
                "people, some have several records, and k-anonymity counts records (k of "
                "one person's hide no one): release one record per person"
            )
        return "identifying", why
    if column.free_text:
        return "identifying", (
            "free text (sentences): it can name people or hold their contact details, "
            "whatever the column is called; removed (declare it sensitive once you have "
            "read it)"
        )
    if column.near_unique:
        per = f"{column.distinct_share:.0%} distinct values per record"
        if by_name == "quasi_identifier":
            return "quasi_identifier", f"demographic and near-unique ({per}): generalize it"
        if column.kind == "date":
            return "quasi_identifier", f"near-unique dates ({per}) single people out"
        what = "number" if column.kind in ("integer", "number") else column.kind
        return "identifying", (
            f"near-unique {what} ({per}): singles people out, removed; or make it a "
            "quasi-identifier"
        )
    if by_name == "sensitive":
        return "sensitive", "the name suggests the outcome to protect"
    if by_name == "quasi_identifier":
        return "quasi_identifier", "demographic; outside data can hold it"
    # fail closed: kept as it stands, a column nobody placed could single people out
    return "quasi_identifier", (
        "no rule matched: generalized to be safe; make it insensitive if no outside data holds it"
    )


#: Why a column of numbers is not a number column.
_COMMA_NOTE = (
    "numbers written with a comma (49,4 or 1,234) read as text: set decimal_comma = true "
    "in [read] if the comma is a decimal one, or write them with a '.' decimal point and "
    "no thousands separator, to generalize them as numbers"
)


def propose_roles(profile: TableProfile) -> list[Proposal]:
    """One role and a one-line reason per column (see the module docstring), no hierarchy.

    Examples
    --------
    >>> frame = pl.DataFrame({"age": ["31", "45"] * 4, "email": ["a@x.org"] * 8,
    ...                       "income": ["1", "2", "2", "1"] * 2,
    ...                       "notes": ["x", "x", "y", "y"] * 2})
    >>> [p.role for p in propose_roles(profile_table(frame))]  # notes: no rule, generalized
    ['quasi_identifier', 'identifying', 'sensitive', 'quasi_identifier']
    """
    roles: dict[str, tuple[str, str]] = {c.name: _first_role(c) for c in profile}
    for c in profile:
        if c.comma_numbers:  # 49,4: a ';' file from a country that writes decimal commas
            role, why = roles[c.name]
            roles[c.name] = (role, f"{why}; {_COMMA_NOTE}")
        if c.partly_dates:  # 2024-03-05 beside 05/03/2024: suppressed, not by month
            role, why = roles[c.name]
            roles[c.name] = (
                role,
                f"{why}; {c.partly_dates:,} of its {c.distinct:,} values read as dates, but "
                "not all in one format (mixed formats, or a day that does not exist): write "
                "them all in one format to generalize them as dates",
            )
        if c.spaced or c.cased or c.encoded:  # ' Paris', 'paris' beside 'Paris': said
            role, why = roles[c.name]
            roles[c.name] = (role, f"{why}; {_spelling_note(c.spaced, c.cased, c.encoded)}")
    changed = True
    while changed:
        changed = False
        qis = {c for c, (role, _) in roles.items() if role == "quasi_identifier"}
        for dep in profile.dependencies:
            role = roles[dep.determinant][0]
            if dep.dependent in qis and role in ("sensitive", "insensitive"):
                roles[dep.determinant] = (
                    "quasi_identifier",
                    f"determines the quasi-identifier {dep.dependent!r}; released as is it "
                    "would undo that generalization",
                )
                changed = True
    qis = {c for c, (role, _) in roles.items() if role == "quasi_identifier"}
    for dep in profile.dependencies:
        role, why = roles[dep.determinant]
        if role == "quasi_identifier" and dep.dependent in qis and "determines" not in why:
            roles[dep.determinant] = (role, f"{why}; determines {dep.dependent!r}")
    for c in profile:
        role, why = roles[c.name]
        if role == "quasi_identifier" and c.nulls:  # anonymize refuses them (fail closed)
            roles[c.name] = (role, f"{why}; {_missing_note(c.nulls)}")
    return [Proposal(name, role, why) for name, (role, why) in roles.items()]


def _spelling_note(spaced: int, cased: int, encoded: int) -> str:
    """What the run does with values that differ from another only by surrounding spaces
    (read as that value), by case or by how an accent is encoded (kept apart), so that a
    person checks the spelling."""
    parts = []
    if spaced:
        parts.append(f"{spaced:,} only by surrounding spaces (read as that one)")
    if cased:
        parts.append(f"{cased:,} only by case (kept apart)")
    if encoded:  # 'São' with a combining tilde: two classes that print alike
        parts.append(f"{encoded:,} only by how an accent is encoded (look alike, kept apart)")
    return f"values that differ from another: {', '.join(parts)}; check the spelling"


def _missing_note(nulls: int) -> str:
    """Why a quasi-identifier's missing cells need a decision before the run."""
    cells = "cell stops" if nulls == 1 else "cells stop"
    return (
        f"its {nulls} missing {cells} the run: fill them with a value its hierarchy covers "
        "(an empty cell is always missing), or, where a token such as '?' marks them, read "
        "it as a value (leave it out of [read] missing); or make the column identifying"
    )


# ------------------------------------------------------------------------ hierarchies
def _nice_widths(low: float, high: float, integer: bool) -> list[int | float] | None:
    span = high - low
    if not math.isfinite(span) or span <= 0:
        return None
    target = Decimal(repr(span / 20))
    exponent = math.floor(math.log10(span / 20))
    width = next(
        m * Decimal(10) ** e
        for e in (exponent, exponent + 1)
        for m in (1, 2, 5)
        if m * Decimal(10) ** e >= target
    )
    if integer:
        width = max(width.to_integral_value(rounding="ROUND_CEILING"), Decimal(2))
    widths = [width]
    while widths[-1] * 4 < Decimal(repr(span)) and len(widths) < 4:
        widths.append(widths[-1] * 2)
    return [int(w) if w == w.to_integral_value() else float(w) for w in widths]


def _values(frame: pl.DataFrame, column: str) -> pl.Series:
    series = frame.get_column(column).drop_nulls()
    if series.dtype == pl.String:
        series = series.str.strip_chars()
        series = series.filter(series != "")
    return series


def dates_table(dtype: pl.DataType, date_format: str | None) -> dict[str, Any]:
    """The ``dates`` builder table for a date column of ``dtype`` whose text reads in
    ``date_format`` (``None``: a date or timestamp column): month, year, with the day first
    when the values hold times of day (a timestamp column, or a format with hours), and
    the format unless it is the builder's default."""
    timed = isinstance(dtype, pl.Datetime) or (date_format is not None and "%H" in date_format)
    spec: dict[str, Any] = {
        "type": "dates",
        "levels": ["day", "month", "year"] if timed else ["month", "year"],
    }
    if date_format is not None and date_format != "%Y-%m-%d":
        spec["format"] = date_format
    return spec


def propose_hierarchy(frame: pl.DataFrame, column: ColumnProfile) -> dict[str, Any]:
    """A builder table for a quasi-identifier that builds on the column's values."""
    values = _values(frame, column.name)
    spec: dict[str, Any] = {"type": "suppression"}
    if column.kind in ("integer", "number") and values.len():
        numbers = values.cast(pl.Float64, strict=False).drop_nulls()
        if numbers.len():
            low, high = float(numbers.min()), float(numbers.max())  # type: ignore[arg-type]
            widths = _nice_widths(low, high, column.kind == "integer")
            if widths is not None:
                spec = {"type": "intervals", "widths": widths}
    elif column.kind == "date":
        spec = dates_table(frame.schema[column.name], column.date_format)
    elif column.kind == "code":
        spec = {"type": "masking"}
    if spec["type"] != "suppression" and values.len():
        try:
            build_hierarchy(spec, values.unique().to_list(), name=column.name)
        except (AnonkitError, ValueError):
            spec = {"type": "suppression"}
    return spec


# ------------------------------------------------------------------------------- TOML
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def toml_string(text: str) -> str:
    r"""``text`` as a TOML basic string.

    Examples
    --------
    >>> print(toml_string('say "hi"\tnow\\'))
    "say \"hi\"\tnow\\"
    """
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def toml_key(name: str) -> str:
    """``name`` as a TOML key: bare when it can be, else quoted."""
    return name if _BARE_KEY.fullmatch(name) else toml_string(name)


def toml_value(value: Any) -> str:
    """``value`` (bool, number, string, path, list, mapping) as a TOML value.

    Examples
    --------
    >>> toml_value({"widths": [5, 10], "name": "a\\"b"})
    '{ widths = [5, 10], name = "a\\\\"b" }'
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str | Path):
        return toml_string(str(value))
    if isinstance(value, Mapping):
        pairs = (f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items())
        return "{ " + ", ".join(pairs) + " }"
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def _comment(text: str) -> str:
    return "".join(ch if ch.isprintable() else " " for ch in text)


def _column_note(column: ColumnProfile) -> str:
    note = f"{column.kind}, {column.distinct:,} distinct"
    if column.nulls:
        note += f", {column.nulls:,} missing"
    return note


def _aligned(rows: list[tuple[str, str]], indent: str = "") -> list[str]:
    width = min(max((len(code) for code, _ in rows), default=0), 48)
    return [f"{indent}{code.ljust(width)}  # {_comment(note)}" for code, note in rows]


def starter_config(
    frame: pl.DataFrame,
    *,
    input: str,  # noqa: A002 - the configuration key it fills
    output: str | None = None,
    read: ReadSettings | None = None,
    profile: TableProfile | None = None,
    k: int = 5,
    suppression_limit: float = 0.05,
    hierarchy_files: Mapping[str, str] | None = None,
) -> Starter:
    """Profile ``frame`` and write a commented starter configuration for it.

    Parameters
    ----------
    frame
        The table, read as the configuration will read it.
    input, output
        The ``input`` and ``output`` paths to write (relative to the configuration file).
    read
        How the input was read (the ``[read]`` section); None leaves the section out.
    profile
        The table's profile, if already computed.
    k, suppression_limit
        The ``[privacy]`` settings to propose.
    hierarchy_files
        Per column, a hierarchy file (its path as the configuration writes it) to propose
        for it when it is a quasi-identifier, instead of a builder.

    Returns
    -------
    Starter
        The profile, one :class:`Proposal` per column and the TOML text.

    Raises
    ------
    ParameterError
        If ``k`` is not an int >= 1 or ``suppression_limit`` not a share between 0 and 1.
    """
    check_int(k, "k", "starter_config()", low=1)
    check_real(
        suppression_limit, "suppression_limit", "starter_config()", low=0, high=1, noun="a share"
    )
    prof = profile if profile is not None else profile_table(frame)
    files = dict(hierarchy_files or {})
    proposals = [
        Proposal(
            p.column,
            p.role,
            p.why,
            {"type": "file", "path": files[p.column]}
            if p.column in files
            else propose_hierarchy(frame, prof[p.column]),
        )
        if p.role == "quasi_identifier"
        else p
        for p in propose_roles(prof)
    ]
    text = _render(prof, proposals, input=input, output=output, read=read, k=k,
                   suppression_limit=suppression_limit)  # fmt: skip
    return Starter(prof, tuple(proposals), text)


def _render(
    profile: TableProfile,
    proposals: list[Proposal],
    *,
    input: str,  # noqa: A002
    output: str | None,
    read: ReadSettings | None,
    k: int,
    suppression_limit: float,
) -> str:
    lines = [
        "# Starter configuration for `anonkit anonymize`, written by `anonkit init`",
        f"# from {_comment(input)} ({profile.records:,} records, {len(profile.columns)} columns).",
        "# Every role and hierarchy below is a proposal with its reason: check each one,",
        "# change what is wrong, then run `anonkit anonymize <this file>`.",
        f"input = {toml_string(input)}",
    ]
    if output is not None:
        lines.append(f"output = {toml_string(output)}")
    if read is not None:
        guessed = " (detected)"
        lines += ["", "[read]"]
        rows: list[tuple[str, str]] = []
        if read.separator is not None:
            note = "field separator" + (guessed if "separator" in read.detected else "")
            rows.append((f"separator = {toml_string(read.separator)}", note))
            rows.append((f"encoding = {toml_string(read.encoding)}", "e.g. latin-1 for old files"))
        note = "cells read as missing values" + (guessed if "missing" in read.detected else "")
        rows.append((f"missing = {toml_value(list(read.missing))}", note))
        if read.found_missing:
            found = ", ".join(repr(t) for t in read.found_missing)
            rows.append(
                (
                    f"# missing = {toml_value(['', *read.found_missing])}",
                    f"{found} found: kept as a value (quasi-identifiers cannot be missing)",
                )
            )
        note = "trim spaces around values and names" + (guessed if "strip" in read.detected else "")
        rows.append((f"strip = {toml_value(read.strip)}", note))
        note = "read 49,4 as the number 49.4" + (
            guessed if "decimal_comma" in read.detected else ""
        )
        if read.decimal_comma_note:  # why the commas found did not turn it on
            note += f"; {read.decimal_comma_note}"
        rows.append((f"decimal_comma = {toml_value(read.decimal_comma)}", note))
        lines += _aligned(rows)
    lines += ["", "[attributes]"]
    for role in ROLES:
        chosen = [p for p in proposals if p.role == role]
        key = _ROLE_KEYS[role]
        if not chosen:
            lines.append(f"{key} = []")
            continue
        lines.append(f"{key} = [")
        rows = [
            (f"{toml_string(p.column)},", f"{_column_note(profile[p.column])}: {p.why}")
            for p in chosen
        ]
        lines += _aligned(rows, indent="  ")
        lines.append("]")
    lines.append('# others = "error"   # a column with no role stops the run; or "drop", "keep"')
    qis = [p for p in proposals if p.role == "quasi_identifier"]
    lines += ["", "[hierarchies]  # one per quasi-identifier; a hierarchy file path works too"]
    rows = []
    for p in qis:
        spec = p.hierarchy or {"type": "suppression"}
        column = profile[p.column]
        rows.append((f"{toml_key(p.column)} = {toml_value(spec)}", _hierarchy_note(spec, column)))
    lines += _aligned(rows)
    if not qis:
        lines.append("# no quasi-identifier proposed: name at least one in [attributes]")
    lines += [
        "",
        "[privacy]",
        f"k = {k}",
        f"suppression_limit = {toml_value(float(suppression_limit))}"
        "  # share of records that may be suppressed",
        "",
        "[search]",
        'algorithm = "auto"  # Flash (optimal) when it can finish within a minute',
        "",
    ]
    return "\n".join(lines)


def _hierarchy_note(spec: Mapping[str, Any], column: ColumnProfile) -> str:
    kind = spec.get("type")
    if kind == "file":
        return "the hierarchy file beside the data (it covers every value)"
    if kind == "intervals":
        return "bins of growing width over the range of the values"
    if kind == "dates":
        chain = "day -> month -> year -> *"
        if "day" in spec.get("levels", ()):
            chain = f"time -> {chain}"
        if column.date_alternatives:  # 01/02/1980: 1 February or 2 January
            other = " or ".join(column.date_alternatives)
            return f"{chain}; the dates read as {other} too: check format"
        return chain
    if kind == "masking":
        return f"codes of {column.length} characters, masked from the end"
    return "kept or suppressed (*): write a hierarchy file to group values"
