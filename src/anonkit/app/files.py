"""Files named on the app's pages: which fields name one, and how an error of reading one
is told.

Every path typed on a page (the table, a hierarchy file, the population table, a file
parameter of a model in Other models) goes through
:meth:`anonkit.app.state.AppState.named_file` before anything reads it: the one place
that refuses a server file when the app listens on a network address, and that makes
the path absolute (the export writes it, and the CLI would read a relative path from the
configuration's folder, not from the app's). :func:`model_files` does so for the model
parameters :func:`anonkit.models.registry.model_from_config` reads as files.

A hierarchy file that is not one was told with its labels: the lines of whatever file
was named. :func:`without_content` tells it by the file's name and line instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from anonkit.core.resolve import FILE
from anonkit.exceptions import ConfigError, HierarchyError, ValuesNotInHierarchyError

__all__ = ["MODEL_FILE_PARAMETERS", "file_of", "model_files", "without_content"]

#: The model parameters read as a file when they hold text (a hierarchy of
#: hierarchical t-closeness: :func:`anonkit.models.registry.model_from_config`).
MODEL_FILE_PARAMETERS: Final = ("hierarchy",)

#: What a hierarchy error quoting labels says, told without them (by a fragment of its
#: message, :class:`~anonkit.core.hierarchy.Hierarchy`'s checks).
_REASONS: Final = (
    ("appears in more than one row", "a value appears in more than one line"),
    ("has two parents", "a label has two parents at the next level"),
    ("looks like a header", "its first line looks like a header, which a hierarchy file has not"),
    ("single root", "its last level must hold one root (is the separator ; , or a tab?)"),
)
_ANY_REASON: Final = (
    "each line must hold a value and its generalizations, one level per field separated "
    "by ; , or a tab, every line ending in the same root"
)


def model_files(
    params: Mapping[str, Any], named_file: Callable[[str], Path], where: str
) -> dict[str, Any]:
    """``params`` of a model typed in the field ``where``, each file it names (text in
    :data:`MODEL_FILE_PARAMETERS`) passed through ``named_file``, absolute.

    Raises
    ------
    ConfigError
        If ``named_file`` refuses a file (its message, after ``where``).
    """
    out = dict(params)
    for key in MODEL_FILE_PARAMETERS:
        value = out.get(key)
        if isinstance(value, str):
            try:
                out[key] = str(named_file(value))
            except ConfigError as err:
                raise ConfigError(f"{where}: {err}") from None
    return out


def file_of(spec: object) -> str | None:
    """The file a hierarchy spec reads (a path, or a file table), or None."""
    if isinstance(spec, Mapping):
        return str(spec["path"]) if spec.get("type") == FILE and "path" in spec else None
    return str(spec) if isinstance(spec, str | Path) else None


def without_content(err: HierarchyError, path: str | Path) -> HierarchyError:
    """``err``, raised reading the hierarchy file ``path``, told by the file's name and
    the line it names, never a label of the file (an error quoting nothing is kept).

    Examples
    --------
    >>> err = HierarchyError("value 'Bob:secret' appears in more than one row.")
    >>> print(without_content(err, "/srv/h.csv"))
    Hierarchy: h.csv is not a hierarchy file: a value appears in more than one line.
    """
    if isinstance(err, ValuesNotInHierarchyError):  # the data's values, not the file's
        return err
    prefix = "Hierarchy: " if err.column is None else f"Hierarchy for column {err.column!r}: "
    reason = str(err).removeprefix(prefix)
    if "'" not in reason and '"' not in reason:
        return err
    told = next((said for fragment, said in _REASONS if fragment in reason), _ANY_REASON)
    line = re.search(r"\bline (\d+)\b", reason)
    where = f" (line {line.group(1)})" if line else ""
    message = f"{Path(path).name}{where} is not a hierarchy file: {told}."
    return HierarchyError(message, column=err.column)
