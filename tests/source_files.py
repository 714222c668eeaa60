"""Parse a source file for the tests that read the package's own code."""

from __future__ import annotations

import ast
from pathlib import Path


def parse_file(path: Path) -> ast.Module:
    """The syntax tree of ``path``.

    CPython 3.11 keeps the depth of its AST conversion in state that every thread shares
    (see python/cpython#106905): a parse while another thread converts a tree can fail
    with ``SystemError: AST constructor recursion depth mismatch`` (seen once in CI, after
    the app tests had left Shiny's worker threads running). That error says nothing
    about the file, so the parse is tried again.
    """
    text = path.read_text(encoding="utf-8")
    for _ in range(2):
        try:
            return ast.parse(text, filename=str(path))
        except SystemError as err:
            if "recursion depth mismatch" not in str(err):
                raise
    return ast.parse(text, filename=str(path))  # the third attempt raises what it meets
