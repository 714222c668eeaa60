"""Whether an input file changed since it was first read, at the cost of a ``stat``.

The engines that do not hold the records (streaming, Spark) read their input more than
once: a count, then the release. A :class:`FileStamp` is taken before the first pass and
compared with the file before the release is published: a file's size, modification time
(in nanoseconds) and inode (an atomic replacement changes it even when the time is
kept); for a folder of part files (Spark's, a Parquet dataset), the same of every file in
it. That costs one ``stat`` per file, whatever the number of records.

A table scanned lazily (:func:`~anonkit.io.tables.scan_table`'s polars query, a Spark
DataFrame read by :func:`~anonkit.engines.spark_csv.read_csv`) no longer says which file
it reads: :func:`note_source` remembers that for as long as the query lives, with the
stamp taken before the scan's own checks read the file, and :func:`source_stamp` gives
it back (or stamps a path given as such).
"""

from __future__ import annotations

import os
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from anonkit.io.write import local_path

__all__ = ["FileStamp", "file_stamp", "note_source", "source_stamp"]

T = TypeVar("T")

#: Per noted query (by ``id``): a weak reference to it and the stamp of its file.
_NOTED: dict[int, tuple[weakref.ref[Any], FileStamp]] = {}


@dataclass(frozen=True)
class FileStamp:
    """What identifies a local file's (or folder's) content cheaply.

    Attributes
    ----------
    path
        The file or folder, as given (named in messages).
    parts
        Per file (for a folder: every file under it, by relative name; for a file: one,
        named ``""``): its name, size, modification time in nanoseconds and inode.
    """

    path: str
    parts: tuple[tuple[str, int, int, int], ...]

    def changed(self) -> bool:
        """Whether the file is no longer as stamped (changed, replaced or gone)."""
        return file_stamp(self.path) != self


def _part(name: str, st: os.stat_result) -> tuple[str, int, int, int]:
    return (name, st.st_size, st.st_mtime_ns, st.st_ino)


def file_stamp(path: str | os.PathLike[str]) -> FileStamp | None:
    """The stamp of a local file or folder, or ``None`` for a path on a cluster's file
    system (``hdfs://``, ``s3a://``: not stamped) or one that does not exist.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("a\\n1\\n")
    >>> stamp = file_stamp(p)
    >>> stamp.changed()
    False
    >>> _ = p.write_text("a\\n1\\n2\\n")
    >>> stamp.changed()
    True
    """
    local = local_path(path)
    if "://" in str(local):
        return None
    p = Path(local)
    try:
        if not p.is_dir():
            return FileStamp(os.fspath(path), (_part("", p.stat()),))
        parts = []
        for folder, _, files in os.walk(p):
            for name in files:
                full = Path(folder) / name
                parts.append(_part(full.relative_to(p).as_posix(), full.stat()))
    except OSError:  # gone, or gone while listed
        return None
    return FileStamp(os.fspath(path), tuple(sorted(parts)))


def note_source(frame: T, path: str | os.PathLike[str], stamp: FileStamp | None = None) -> T:
    """Remember that ``frame`` (a lazy query) reads the file ``path``, as ``stamp`` found
    it (default: now); returns ``frame``."""
    stamp = stamp if stamp is not None else file_stamp(path)
    if stamp is not None:
        key = id(frame)

        def forget(ref: weakref.ref[Any]) -> None:  # the query is gone: its id is free
            if _NOTED.get(key, (None,))[0] is ref:
                del _NOTED[key]

        _NOTED[key] = (weakref.ref(frame, forget), stamp)
    return frame


def source_stamp(source: Any) -> FileStamp | None:
    """The stamp of what ``source`` reads: a path is stamped now; a query noted by
    :func:`note_source` gives the stamp noted; anything else ``None``."""
    if isinstance(source, (str, os.PathLike)):
        return file_stamp(source)
    noted = _NOTED.get(id(source))
    if noted is not None and noted[0]() is source:
        return noted[1]
    return None
