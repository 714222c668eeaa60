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
        from anonkit.exceptions import DataError

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
