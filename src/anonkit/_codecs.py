"""Text encodings as error messages name them (for :mod:`anonkit.exceptions`, so this
module imports nothing of anonkit)."""

from __future__ import annotations

import codecs

__all__ = ["codec_name", "display_encoding"]


def codec_name(encoding: str) -> str:
    """Python's name of ``encoding``, or ``encoding`` itself when Python does not know it.

    Examples
    --------
    >>> codec_name("latin-1"), codec_name("UTF8"), codec_name("no-such-codec")
    ('iso8859-1', 'utf-8', 'no-such-codec')
    """
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        return encoding


def display_encoding(encoding: str) -> str:
    """``encoding`` as a message names it: ``UTF-8`` for any spelling of UTF-8.

    Examples
    --------
    >>> display_encoding("utf8"), display_encoding("latin-1")
    ('UTF-8', 'latin-1')
    """
    return "UTF-8" if codec_name(encoding).startswith("utf-8") else encoding
