"""What earlier releases published about each record, kept by the data holder.

m-invariance (Xiao & Tao 2007) and τ-safety (Anjum et al. 2017) constrain a new release by
the *signature* each record had before: the set of distinct sensitive values of the class
that published it. :class:`ReleaseHistory` keeps exactly that, per record id: for the last
``window`` releases in which the record was published, the release number and the
signature (m-invariance needs the latest one only; τ-safety a window of τ). Nothing else
of the record is stored: no quasi-identifier, no sensitive value of its own.

The history is private to the data holder (it links record ids to signatures); it is
written atomically as JSON (:meth:`ReleaseHistory.save`).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from anonkit._atomic import atomic_write_text
from anonkit._validation import check_int
from anonkit.exceptions import InputFormatError, ParameterError

__all__ = ["FORMAT_VERSION", "ReleaseHistory", "Signature"]

#: A class's distinct sensitive values, sorted.
Signature = tuple[str, ...]
#: Version of the JSON layout written by :meth:`ReleaseHistory.save`.
FORMAT_VERSION = 1


@dataclass
class ReleaseHistory:
    """Signatures earlier releases gave each record.

    Parameters
    ----------
    window
        Releases remembered per record (1 for m-invariance: the latest signature; τ for
        τ-safety).
    sensitive
        The attribute whose values the signatures hold (``None`` until a release is
        recorded, and in a history written before it was kept): a release of another
        attribute is refused.

    Attributes
    ----------
    releases
        Releases recorded so far.
    records
        Per record id, ``(release number, signature)`` of the last ``window`` releases that
        published it, oldest first.

    Examples
    --------
    >>> h = ReleaseHistory()
    >>> h.record({"r1": ("flu", "hiv"), "r2": ("flu", "hiv")})
    >>> h.latest("r1"), h.releases
    (('flu', 'hiv'), 1)
    """

    window: int = 1
    releases: int = 0
    records: dict[str, list[tuple[int, Signature]]] = field(default_factory=dict)
    sensitive: str | None = None

    def __post_init__(self) -> None:
        check_int(self.window, "window", "ReleaseHistory", low=1)

    def serving(self, sensitive: str, window: int, owner: str = "publish") -> ReleaseHistory:
        """A copy for the next release of ``sensitive`` (its records' lists shared, see
        :meth:`record_many`), remembering at least ``window`` releases.

        Raises
        ------
        ParameterError
            If the history holds the signatures of another attribute.
        """
        if self.sensitive is not None and self.sensitive != sensitive:
            raise ParameterError(
                "sensitive",
                owner,
                f"{self.sensitive!r}, the attribute whose signatures the history holds (a "
                "history serves one sensitive attribute; start a new one for another)",
                sensitive,
            )
        return ReleaseHistory(
            window=max(self.window, window),
            releases=self.releases,
            records=dict(self.records),
            sensitive=sensitive,
        )

    def latest(self, record_id: str) -> Signature | None:
        """The signature of the last release that published ``record_id`` (None if none)."""
        entries = self.records.get(record_id)
        return entries[-1][1] if entries else None

    def signatures(self, record_id: str) -> list[Signature]:
        """The signatures of ``record_id`` within the window, oldest first."""
        return [sig for _, sig in self.records.get(record_id, [])]

    def record(self, signatures: Mapping[str, Iterable[str]]) -> None:
        """Add one release: the signature of every real record it published, by id."""
        distinct = [tuple(sorted(s)) for s in signatures.values()]
        self.record_many([str(rid) for rid in signatures], range(len(distinct)), distinct)

    def record_many(
        self, ids: Sequence[str], index: Sequence[int], signatures: Sequence[Signature]
    ) -> None:
        """Add one release, its records given by columns: ``ids[i]`` was published with
        the (sorted) signature ``signatures[index[i]]``.

        One entry is made per signature and shared by its records (a release of a million
        records makes a million lists, not two million objects); a record's list is
        replaced, never changed in place, so a history sharing the lists of another (a
        shallow copy of its ``records``) leaves that one intact."""
        self.releases += 1
        entries = [(self.releases, sig) for sig in signatures]
        keep = self.window - 1
        if keep:
            old = self.records.get
            lists = [[*old(rid, [])[-keep:], entries[i]] for rid, i in zip(ids, index, strict=True)]
        else:
            lists = [[entries[i]] for i in index]
        self.records.update(zip(ids, lists, strict=True))

    # ---------------------------------------------------------------------- files
    def to_json(self) -> str:
        """The history as JSON (record ids and signatures only)."""
        return json.dumps(
            {
                "format": FORMAT_VERSION,
                "window": self.window,
                "releases": self.releases,
                "sensitive": self.sensitive,
                "records": {
                    rid: [[n, list(sig)] for n, sig in entries]
                    for rid, entries in sorted(self.records.items())
                },
            },
            indent=1,
        )

    def save(self, path: str | Path) -> None:
        """Write the history to ``path`` atomically (temporary file, then rename)."""
        atomic_write_text(Path(path), self.to_json())

    @classmethod
    def from_json(cls, text: str, *, source: str = "the history") -> ReleaseHistory:
        """Read a history written by :meth:`to_json`.

        Raises
        ------
        InputFormatError
            If ``text`` is not such a history (numbers that are no whole numbers, a
            record without entries, release numbers out of order, a signature of fewer
            than two values: nothing :meth:`to_json` writes), naming ``source``.
        """
        try:
            raw = json.loads(text)
            if not isinstance(raw, dict) or _count(raw.get("format"), 1) != FORMAT_VERSION:
                raise ValueError("format")
            releases = _count(raw["releases"], 0)
            records = {
                str(rid): _entries(entries, releases) for rid, entries in raw["records"].items()
            }
            sensitive = raw.get("sensitive")
            if sensitive is not None and not isinstance(sensitive, str):
                raise ValueError("sensitive")
            return cls(
                window=_count(raw["window"], 1),
                releases=releases,
                records=records,
                sensitive=sensitive,
            )
        except _NotASignature:
            raise InputFormatError(
                source,
                "a signature in it is not a sorted list of two or more distinct texts (was "
                "the history edited by hand? anonkit release and ReleaseHistory.save write "
                "it)",
            ) from None
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            raise _not_a_history(source) from exc

    @classmethod
    def load(cls, path: str | Path) -> ReleaseHistory:
        """Read a history written by :meth:`save`.

        Raises
        ------
        InputFormatError
            If the file is not such a history (not UTF-8 text included), naming it.
        """
        p = Path(path)
        try:
            text = p.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _not_a_history(str(p), " (it is not UTF-8 text)") from exc
        return cls.from_json(text, source=str(p))


def _not_a_history(source: str, why: str = "") -> InputFormatError:
    """The error of a file that is no history :meth:`ReleaseHistory.save` wrote."""
    return InputFormatError(
        source,
        f"it is not a release history of format {FORMAT_VERSION}{why}; anonkit release "
        "and ReleaseHistory.save write one",
    )


def _count(value: object, low: int) -> int:
    """A whole number of JSON read as written: ``>= low``, never a float or a boolean
    (``1.7`` is no number of releases, ``1e999`` no window)."""
    if type(value) is not int or value < low:
        raise ValueError("count")
    return value


def _entries(value: object, releases: int) -> list[tuple[int, Signature]]:
    """A record's entries read from JSON: one or more ``[release number, signature]``,
    release numbers increasing, none after ``releases``."""
    if not isinstance(value, list) or not value:
        raise ValueError("entries")
    entries = []
    for entry in value:
        if not isinstance(entry, list) or len(entry) != 2:
            raise ValueError("entry")
        entries.append((_count(entry[0], 1), _signature(entry[1])))
    numbers = [n for n, _ in entries]
    if numbers[-1] > releases or any(a >= b for a, b in itertools.pairwise(numbers)):
        raise ValueError("release numbers")
    return entries


class _NotASignature(ValueError):
    """A history's signature that :meth:`ReleaseHistory.to_json` would not have written."""


def _signature(value: object) -> Signature:
    """A signature read from JSON: a sorted list of two or more distinct strings (a class
    holds ``m >= 2`` values), as written."""
    if not isinstance(value, list) or len(value) < 2:
        raise _NotASignature()
    if not all(isinstance(v, str) for v in value):
        raise _NotASignature()
    if any(a >= b for a, b in itertools.pairwise(value)):
        raise _NotASignature()
    return tuple(value)
