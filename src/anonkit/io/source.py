"""A text file's bytes as UTF-8, read from disk once, for the strict reader
(:func:`anonkit.io.tables.read_table`)."""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from anonkit._formats import refuse_nul
from anonkit.exceptions import InputEncodingError, InputFileError, InputFormatError

__all__ = ["TextSource", "refuse_nul"]


class TextSource:
    """A text file's bytes as UTF-8, read from disk once.

    The quoting check reads every file whole; polars then parses those same bytes
    (strictly: it raises on a bad byte). Other encodings are transcoded once.
    """

    _HEAD = 1024 * 1024

    def __init__(self, path: Path, encoding: str) -> None:
        self.path = path
        self.encoding = encoding
        self.utf8 = codecs.lookup(encoding).name in ("utf-8", "utf-8-sig")
        self.skipped = 0  # bytes of a UTF-8 byte-order mark before the data
        self._data: bytes | None = None

    def head(self) -> tuple[bytes, bool]:
        """The first bytes (about a megabyte) and whether they are the whole file."""
        if not self.utf8:
            return self.data(), True
        try:
            with self.path.open("rb") as fh:
                head = fh.read(self._HEAD + 1)
        except OSError as exc:
            raise InputFileError(self.path, exc.strerror or str(exc)) from None
        if head.startswith(codecs.BOM_UTF8):
            self.skipped = len(codecs.BOM_UTF8)
        head = head[self.skipped : self._HEAD + 1]
        refuse_nul(self.path, head, self.skipped)
        return head[: self._HEAD], len(head) <= self._HEAD

    def data(self) -> bytes:
        """The whole file as UTF-8 bytes, without a byte-order mark."""
        if self._data is None:
            try:
                raw = self.path.read_bytes()
            except OSError as exc:
                raise InputFileError(self.path, exc.strerror or str(exc)) from None
            if self.utf8:
                self.skipped = len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0
                # (slicing copies the whole file: only when there is a mark to drop)
                self._data = raw[self.skipped :] if self.skipped else raw
            else:
                try:
                    text = raw.decode(self.encoding)
                except UnicodeDecodeError as exc:
                    raise InputEncodingError.from_decode_error(
                        self.path, raw, exc, self.encoding
                    ) from None
                _refuse_utf8(self.path, raw, self.encoding)
                _refuse_c1(self.path, text, self.encoding)
                self._data = text.removeprefix("\ufeff").encode("utf-8")
            refuse_nul(self.path, self._data, self.skipped)
        return self._data

    def polars_source(self) -> Path | bytes:
        """What polars parses: the bytes when they are already read, else the path."""
        if self._data is None and self.utf8:
            return self.path
        return self.data()


#: Control characters that Latin-1 gives the bytes 0x80-0x9F, which Windows files
#: (cp1252) use for the euro sign, curly quotes and dashes.
_C1 = re.compile("[\x80-\x9f]")


def _refuse_c1(path: Path, text: str, encoding: str) -> None:
    """Refuse Latin-1 text holding a C1 control character: almost always a cp1252 file
    read as Latin-1, whose euro signs and quotes would be published as controls."""
    if codecs.lookup(encoding).name != "iso8859-1":
        return
    found = _C1.search(text)
    if found is not None:
        line = text.count("\n", 0, found.start()) + 1
        code = ord(found.group())
        raise InputFormatError(
            path,
            f"line {line} holds byte 0x{code:02X}, a control character in {encoding}; "
            "Windows files use it for the euro sign, quotes or dashes: declare encoding = "
            '"cp1252" (--encoding cp1252, encoding="cp1252" in Python).',
            line=line,
        )


def _refuse_utf8(path: Path, raw: bytes, encoding: str) -> None:
    """Refuse a file declared in a one-byte encoding (Latin-1, cp1252, ...) whose bytes
    are UTF-8 holding letters beyond ASCII: one-byte text almost never is, and read as
    declared every such letter would be published as two (``ü`` as ``Ã¼``)."""
    if codecs.lookup(encoding).name.startswith("utf") or raw.isascii():
        return
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return
    at = next(i for i, ch in enumerate(text) if not ch.isascii())
    line = text.count("\n", 0, at) + 1
    letter = text[at]
    shown = letter.encode("utf-8").decode(encoding, errors="replace")
    raise InputFormatError(
        path,
        f"line {line} holds {letter!r} written in UTF-8, which {encoding} reads as "
        f'{shown!r}: the file is UTF-8; declare encoding = "utf-8" (--encoding utf-8, '
        'encoding="utf-8" in Python).',
        line=line,
    )
