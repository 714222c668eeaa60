"""Reading TOML configuration files and checking their keys, for every loader (``anonkit
anonymize`` runs, studies, ``anonkit evaluate``).

A key a loader does not know stops the run, named with the file, the keys it may have
been meant as, or the section it belongs in: a misspelt or misplaced key would otherwise
fall back to its default without a word.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from anonkit._formats import require_file
from anonkit.exceptions import ConfigError, InputFileError, did_you_mean

__all__ = ["check_keys", "read_toml", "type_name"]


def type_name(value: object) -> str:
    """What a TOML value is, in words ("an integer", "a list"), for error messages."""
    return {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "a boolean",
        list: "a list",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def read_toml(path: str | Path) -> dict[str, Any]:
    """The tables of a TOML file (UTF-8, an optional byte-order mark).

    Raises
    ------
    InputFileError
        If the file does not exist or cannot be read as UTF-8 text.
    ConfigError
        If it is not valid TOML.
    """
    p = Path(path)
    require_file(p)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InputFileError(p, "not a UTF-8 text file") from None
    except OSError as exc:
        raise InputFileError(p, exc.strerror or str(exc)) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p} is not valid TOML: {exc}.") from None


def check_keys(
    data: Mapping[str, Any],
    top: Sequence[str],
    sections: Mapping[str, Sequence[str] | None],
    where: str,
) -> None:
    """Refuse a key of ``data`` that is neither in ``top`` nor a section of ``sections``,
    a section that is not a table, and a key of a section that the section does not take
    (``None``: any key, e.g. column names).

    Raises
    ------
    ConfigError
        Naming the key, ``where`` (the file), the keys allowed there, and the section the
        key belongs in or the keys it may have been meant as.

    Examples
    --------
    >>> try:
    ...     check_keys({"k": 2}, ["input"], {"privacy": ["k"]}, "run.toml")
    ... except ConfigError as err:
    ...     print(err)
    Unknown key 'k' (it belongs in [privacy]) in run.toml; expected one of: input, [privacy].
    """
    for key, value in data.items():
        if key in sections:
            if not isinstance(value, dict):
                raise ConfigError(
                    f"The key '{key}' in {where} must be a table (section), "
                    f"not {type_name(value)} ({value!r})."
                )
            allowed = sections[key]
            if allowed is None:  # any key
                continue
            for sub in value:
                if sub not in allowed:
                    raise ConfigError(
                        f"Unknown key '{sub}'{_hint(sub, key, sections)} in section [{key}] of "
                        f"{where}; expected one of: {', '.join(allowed)}."
                    )
        elif key not in top:
            known = ", ".join([*top, *(f"[{s}]" for s in sections)])
            hint = _hint(key, None, sections, top)
            raise ConfigError(f"Unknown key '{key}'{hint} in {where}; expected one of: {known}.")


def _hint(
    key: str,
    section: str | None,
    sections: Mapping[str, Sequence[str] | None],
    top: Sequence[str] = (),
) -> str:
    """Why ``key`` is unknown in ``section`` (``None``: at the top of the file): the
    section it belongs in, else the keys (and sections) it may have been meant as."""
    homes = [f"[{s}]" for s, keys in sections.items() if s != section and key in (keys or ())]
    if homes:
        return f" (it belongs in {' or '.join(homes)})"
    if section is not None:
        return did_you_mean(key, sections[section] or ())
    return did_you_mean(
        key, [*top, *sections], label=lambda n: repr(f"[{n}]" if n in sections else n)
    )
