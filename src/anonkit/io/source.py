"""A text file's bytes as UTF-8, read from disk once, for the strict reader
(:func:`anonkit.io.tables.read_table`)."""

from __future__ import annotations

import codecs
from pathlib import Path

from anonkit.exceptions import InputEncodingError, InputFileError

__all__ = ["TextSource"]


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
        return head[self.skipped : self._HEAD], len(head) <= self._HEAD

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
                self._data = text.removeprefix("\ufeff").encode("utf-8")
        return self._data

    def polars_source(self) -> Path | bytes:
        """What polars parses: the bytes when they are already read, else the path."""
        if self._data is None and self.utf8:
            return self.path
        return self.data()
