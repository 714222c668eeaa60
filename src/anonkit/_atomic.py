"""Atomic file output: write to a temporary file in the same folder, then rename.

The temporary file sits alone in a hidden staging folder beside the output, removed with
it: a writer that is still running when it fails (polars' streaming sinks open their file
from a worker thread) cannot recreate the file once the folder is gone.

The rename happens where the data lives: a symbolic link is written through (its target is
replaced, the link stays), a rewritten file keeps its permissions, and a path that is not
a regular file (a FIFO, a device such as ``/dev/null``, a socket) is refused, since a rename
would replace the node itself rather than write to it (:func:`write_target`).

Every file renamed into place is also noted in every open :class:`CommitLog`, so that a
command stopped by Ctrl-C can say which of its outputs are already complete
(:mod:`anonkit.cli.interrupt`); with no log open, nothing is kept.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType

from anonkit.exceptions import DataError, OutputLocationError


class CommitLog:
    """The files renamed into place while the log is open: absolute paths, in the order
    they were committed, each once.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> with CommitLog() as log:
    ...     atomic_write_text(folder / "a.txt", "one")
    ...     atomic_write_text(folder / "a.txt", "two")
    >>> atomic_write_text(folder / "b.txt", "after the log was closed")
    >>> [p.name for p in log.paths]
    ['a.txt']
    """

    def __init__(self) -> None:
        self._paths: dict[Path, None] = {}

    @property
    def paths(self) -> list[Path]:
        """The files committed so far, in order."""
        return list(self._paths)

    def add(self, path: Path) -> None:
        """Note ``path`` (absolute) as committed."""
        self._paths[path] = None

    def discard(self, path: Path) -> None:
        """Forget ``path`` (absolute): it was removed again."""
        self._paths.pop(path, None)

    def open(self) -> None:
        """Start noting the files committed (in any thread of this process)."""
        if self not in _OPEN:
            _OPEN.append(self)

    def close(self) -> None:
        """Stop noting; the paths noted so far stay."""
        with contextlib.suppress(ValueError):
            _OPEN.remove(self)

    def __enter__(self) -> CommitLog:
        self.open()
        return self

    def __exit__(
        self,
        typ: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


#: The commit logs open now.
_OPEN: list[CommitLog] = []


def note_commit(path: Path | str) -> None:
    """Note in every open :class:`CommitLog` that ``path`` was just put in place
    complete (for writers that rename without :func:`atomic_path`)."""
    absolute = Path(os.path.abspath(path))
    for log in tuple(_OPEN):
        log.add(absolute)


def forget_commit(path: Path | str) -> None:
    """Forget in every open :class:`CommitLog` a file committed, then removed (a staging
    file): it is not among the files a command leaves."""
    absolute = Path(os.path.abspath(path))
    for log in tuple(_OPEN):
        log.discard(absolute)


def write_target(path: str | os.PathLike[str]) -> tuple[Path, os.stat_result | None]:
    """The file a write to ``path`` replaces (absolute), and its status (``None``: no
    file there yet), refusing a path no atomic write can honour.

    A symbolic link is written through: the rename happens at its resolved target, so the
    link stays and everything sharing the target (a release history kept in one place)
    sees the new content. A path that exists and is neither a regular file nor a folder
    (a FIFO, a character or block device, a socket) is refused: renaming over it would
    replace the node itself (run as root, ``/dev/null``) instead of writing to it. A folder
    is returned for the caller to judge (Spark writes one; :func:`atomic_path` refuses it).

    Raises
    ------
    OutputLocationError
        If ``path`` is a special file, a loop of symbolic links, or cannot be inspected.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "link.txt").symlink_to(folder / "real.txt")
    >>> target, status = write_target(folder / "link.txt")
    >>> target.name, status
    ('real.txt', None)
    """
    target = Path(os.path.realpath(path))
    try:
        status = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        return target, None  # a new file: the write (or the output checks) says if it can
    except OSError as err:
        if err.errno == errno.ENAMETOOLONG:
            return target, None  # the write's own temporary name fails the same way
        why = f"it cannot be inspected ({err.strerror or err})"
        if err.errno == errno.ELOOP:
            why = "it is a loop of symbolic links"
        raise OutputLocationError(path, why) from None
    if not (stat.S_ISREG(status.st_mode) or stat.S_ISDIR(status.st_mode)):
        kind = _KINDS.get(stat.S_IFMT(status.st_mode), "special file")
        raise OutputLocationError(
            path,
            f"it is not a regular file but a {kind}, which a rename would replace; "
            "write to a regular file instead",
        )
    return target, status


#: The names of the kinds of special file :func:`write_target` refuses.
_KINDS = {
    stat.S_IFIFO: "FIFO (named pipe)",
    stat.S_IFCHR: "character device",
    stat.S_IFBLK: "block device",
    stat.S_IFSOCK: "socket",
}


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a temporary path next to the file ``path`` names; rename it over that file on
    success.

    The file is the one :func:`write_target` finds: a symbolic link's target (the link
    stays); a FIFO, device, socket or folder is refused before the caller writes anything.
    A file replaced keeps its permission bits (a history locked to 0600 stays private);
    a new one gets what a plain ``open()`` would give (``0o666`` less the umask).

    On any exception the temporary file is removed and ``path`` is left untouched, unless
    the rename was done when the exception came (a Ctrl-C right after it): ``path`` is
    then complete and noted as committed like any other.

    Raises
    ------
    OutputLocationError
        As :func:`write_target`, or if ``path`` is a folder.
    """
    path = Path(path)
    target, status = write_target(path)
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise OutputLocationError(path, "it is a folder; name a file")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    tmp_path = staging / target.name
    tmp_path.touch(mode=0o600)
    if status is not None:  # a file replaced keeps its permissions
        mode = stat.S_IMODE(status.st_mode)
    else:  # mkstemp creates 0600 files; give a new one what a plain open() would
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    renaming = False
    try:
        os.chmod(tmp_path, mode)
        yield tmp_path
        renaming = True
        os.replace(tmp_path, target)
        note_commit(path)
        _remove_staging(staging)
    except BaseException as err:
        # a signal handler can raise between any two calls, even right after the rename:
        # whether the temporary name is gone tells if the file was committed
        if renaming and not os.path.lexists(tmp_path):
            note_commit(path)
        _remove_staging(staging)
        if isinstance(err, OSError) and err.filename in (str(tmp_path), None):
            if not err.filename2:  # name the file the caller asked for, not the temporary
                raise OSError(err.errno, err.strerror, str(path)) from err
        raise


def _remove_staging(staging: Path) -> None:
    """Remove the staging folder and whatever is in it; a file a late writer creates
    between emptying and removing the folder makes the removal try again."""
    for _ in range(100):
        try:
            shutil.rmtree(staging)
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)
        else:
            return


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def atomic_write(path: Path, writer: Callable[[Path], None]) -> None:
    """Call ``writer(tmp_path)`` and move the result to ``path`` atomically."""
    with atomic_path(path) as tmp:
        writer(tmp)


def splice_marked_block(text: str, start: str, end: str, body: str, *, title: str) -> str:
    r"""``text`` with ``body`` between its ``start`` and ``end`` marker lines.

    The rest of the text (hand-written prose around a generated block) is kept; a text
    without the markers gets the block appended, a blank one starts with ``title``. A text
    with only one of the two markers raises :class:`~anonkit.exceptions.DataError` rather
    than gaining a second block.

    Examples
    --------
    >>> splice_marked_block("# T\n\n<!-- a -->\nold\n<!-- b -->\n", "<!-- a -->", "<!-- b -->",
    ...                     "new", title="# T")
    '# T\n\n<!-- a -->\nnew\n<!-- b -->\n'
    >>> splice_marked_block("", "<!-- a -->", "<!-- b -->", "one", title="# T")
    '# T\n\n<!-- a -->\none\n<!-- b -->\n'
    """
    block = f"{start}\n{body.strip()}\n{end}"
    i = text.find(start)
    j = text.find(end, i + len(start)) if i >= 0 else -1
    if i >= 0 and j >= 0:
        return text[:i] + block + text[j + len(end) :]
    if i >= 0 or text.find(end) >= 0:
        raise DataError(f"The text has an unmatched marker {start!r} / {end!r}; fix it by hand.")
    if not text.strip():
        text = title
    return text.rstrip("\n") + "\n\n" + block + "\n"


def replace_marked_block(path: Path, start: str, end: str, body: str, *, title: str) -> None:
    r"""Put ``body`` between the ``start`` and ``end`` marker lines of the text file ``path``
    (:func:`splice_marked_block`; a missing file is created), atomically.

    Examples
    --------
    >>> import tempfile
    >>> page = Path(tempfile.mkdtemp()) / "page.md"
    >>> replace_marked_block(page, "<!-- a -->", "<!-- b -->", "one", title="# T")
    >>> replace_marked_block(page, "<!-- a -->", "<!-- b -->", "two", title="# T")
    >>> page.read_text(encoding="utf-8")
    '# T\n\n<!-- a -->\ntwo\n<!-- b -->\n'
    """
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    atomic_write_text(path, splice_marked_block(text, start, end, body, title=title))
