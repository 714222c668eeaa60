"""Atomic file output: write to a temporary file in the same folder, then rename."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it over ``path`` on success.

    On any exception the temporary file is removed and ``path`` is left untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    # mkstemp creates 0600 files; give the result the permissions a plain open() would
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp_path.unlink()
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def atomic_write(path: Path, writer: Callable[[Path], None]) -> None:
    """Call ``writer(tmp_path)`` and move the result to ``path`` atomically."""
    with atomic_path(path) as tmp:
        writer(tmp)


def replace_marked_block(path: Path, start: str, end: str, body: str, *, title: str) -> None:
    """Put ``body`` between the ``start`` and ``end`` marker lines of the text file ``path``.

    The rest of the file (hand-written prose around a generated block) is kept; a file
    without the markers gets the block appended, a missing file is created with ``title``
    as its first line. The write is atomic.

    Examples
    --------
    >>> import tempfile
    >>> page = Path(tempfile.mkdtemp()) / "page.md"
    >>> replace_marked_block(page, "<!-- a -->", "<!-- b -->", "one", title="# T")
    >>> replace_marked_block(page, "<!-- a -->", "<!-- b -->", "two", title="# T")
    >>> page.read_text(encoding="utf-8")
    '# T\\n\\n<!-- a -->\\ntwo\\n<!-- b -->\\n'
    """
    block = f"{start}\n{body.strip()}\n{end}"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    i = text.find(start)
    j = text.find(end, i + 1) if i >= 0 else -1
    if i >= 0 and j >= 0:
        text = text[:i] + block + text[j + len(end) :]
    else:
        text = (text or f"{title}\n").rstrip("\n") + "\n\n" + block + "\n"
    atomic_write_text(path, text)
