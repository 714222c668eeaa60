"""The API's parameter errors in the words of a TOML run configuration.

:func:`anonkit.config.run_config` hands the keys of a configuration to
:func:`anonkit.anonymize` as its keywords. A value that the API refuses only in combination
with another (``metric`` with ``algorithm = "mondrian"``, ``k`` above the number of records)
is worded there as "The 'metric' parameter of anonymize ...", a name a TOML user never
wrote. :func:`toml_wording` tells it by the key, its section and the file, or by the
command's flag when one gave the value; an error about anything else is left as it is.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from anonkit.api import ALGORITHMS, ESTIMATOR_ALGORITHMS
from anonkit.config import SECTIONS
from anonkit.exceptions import ConfigError, ParameterError
from anonkit.models import KAnonymity

if TYPE_CHECKING:
    from anonkit.config import AnonymizeConfig

__all__ = ["toml_wording"]

#: The keywords of :func:`anonkit.anonymize` whose TOML name differs from theirs (see
#: :meth:`~anonkit.config.AnonymizeConfig.anonymize_kwargs`): section and key (``None``:
#: the whole section). Every other keyword is the key of its name in :data:`SECTIONS`.
_RENAMED: dict[str, tuple[str, str | None]] = {
    "privacy": ("privacy", "models"),
    "hierarchies": ("hierarchies", None),
}


def _toml_key(err: ParameterError, cfg: AnonymizeConfig) -> tuple[str, str | None] | None:
    """The section and key that would give ``err``'s parameter to its owner: a keyword
    of ``anonymize``, a parameter of the estimator that ``[search] algorithm`` names
    (from ``[search.options]`` or ``[search]``), or the ``k`` that ``[privacy] k`` gives
    KAnonymity (unless a model may have given it); ``None`` for another owner's."""
    name = err.parameter
    if err.owner == "anonymize":
        if name in _RENAMED:
            return _RENAMED[name]
        if name not in cfg.anonymize_kwargs():  # not a keyword the configuration gives
            return None
        return next(((s, name) for s, keys in SECTIONS.items() if name in (keys or ())), None)
    if err.owner == ESTIMATOR_ALGORITHMS.get(cfg.algorithm):
        options = cfg.options.get("options")
        if isinstance(options, Mapping) and name in options:
            return "search.options", name
        return ("search", name) if name in (SECTIONS["search"] or ()) else None
    if (err.owner, name) == ("KAnonymity", "k"):
        if not any(isinstance(model, KAnonymity) for model in cfg.privacy):
            return "privacy", "k"
    return None


def _given(data: Mapping[str, Any], section: str, key: str | None) -> bool:
    """Whether the parsed file ``data`` gives ``key`` in ``section`` (a dotted section is
    a table inside another)."""
    table: Any = data
    for part in section.split("."):
        table = table.get(part) if isinstance(table, Mapping) else None
    return isinstance(table, Mapping) and (key is None or key in table)


def _toml_spelling(expected: str) -> str:
    """``algorithm='mondrian'`` as the file spells it: ``algorithm = "mondrian"``."""
    return re.sub(
        r"algorithm='(\w+)'",
        lambda m: f'algorithm = "{m[1]}"' if m[1] in ALGORITHMS else m[0],
        expected,
    )


def reworded(
    err: ParameterError,
    cfg: AnonymizeConfig,
    data: Mapping[str, Any],
    flags: Mapping[str, str] | None = None,
) -> ConfigError | ParameterError | None:
    """``err`` told by the flag of ``flags`` (keyword -> flag) that gave its parameter,
    else by the TOML key in ``data`` (the parsed file of ``cfg``); ``None`` when neither
    gave it.

    The message keeps what ``err`` said (its expected text, value and hint), never more.
    """
    found = _toml_key(err, cfg)
    if found is None or (err.parameter == "engine" and cfg.engine == "auto"):
        return None  # another owner's parameter, or an engine the run chose, not the user
    expected = _toml_spelling(err.expected)
    flag = (flags or {}).get(err.parameter)
    if flag is not None:
        return ParameterError(flag, "anonkit anonymize", expected, err.got, err.hint)
    section, key = found
    if not _given(data, section, key):
        return None  # the configuration's default, not a key of the file
    where = str(cfg.path) if cfg.path is not None else "the configuration"
    label = f"[{section}]" if key is None else f"[{section}] {key}"
    return ConfigError(f"{label} in {where} must be {expected}. Got {err.got!r} instead.{err.hint}")


@contextlib.contextmanager
def toml_wording(
    cfg: AnonymizeConfig, data: Mapping[str, Any], flags: Mapping[str, str] | None = None
) -> Iterator[None]:
    """Around a run of ``cfg``: a :class:`ParameterError` about a value the file
    ``data`` (or a flag of ``flags``, keyword -> flag) gave is raised again in their
    words (:func:`reworded`); other errors pass as they are.

    Raises
    ------
    ConfigError
        Naming ``[section] key in FILE``, for a value of the file (exit code 2).
    ParameterError
        Naming the flag (``"The '--engine' parameter of anonkit anonymize ..."``).
    """
    try:
        yield
    except ParameterError as err:
        told = reworded(err, cfg, data, flags)
        if told is None:
            raise
        raise told from None
