"""The labels a release of :func:`anonkit.releases.publish` gives its classes, and how they
are read back.

A numeric quasi-identifier is labelled ``[lo-hi]``; any other the set of its class's values,
``{a,b}``: the values sorted and joined by commas as one CSV row is written, so a member
that is empty or holds a comma, a brace, a double quote or a line break is written in
double quotes with its quotes doubled (``{"Austin, TX",Paris}``, ``{"a ""b"" c"}``), and
a label of plain values reads as before (``{Lyon,Nice}``). :func:`set_members` reads one
back; a class of missing values only is ``{}``, no member.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence

import numpy as np
import polars as pl

__all__ = ["class_labels", "quote_members", "set_members"]

#: Characters that put a member of a set label in quotes (with the empty member).
_SPECIAL = r'[,{}"\r\n]'
#: Working columns of :func:`class_labels` (reserved names, core.schema.RESERVED_PREFIX:
#: a quasi-identifier named ``_code`` would be confused with them).
_CODE, _SET = "__anonkit_code__", "__anonkit_set__"


def quote_members(values: pl.Series) -> pl.Series:
    """``values`` as members of a set label: those that are empty or hold a comma, a brace,
    a double quote or a line break in double quotes, their quotes doubled.

    Examples
    --------
    >>> quote_members(pl.Series(["Paris", "Austin, TX", 'a "b" c', ""])).to_list()
    ['Paris', '"Austin, TX"', '"a ""b"" c"', '""']
    """
    quoted = pl.lit('"') + pl.col("v").str.replace_all('"', '""', literal=True) + pl.lit('"')
    odd = pl.col("v").str.contains(_SPECIAL) | (pl.col("v") == "")
    frame = pl.DataFrame({"v": values.cast(pl.String)})
    return frame.select(pl.when(odd).then(quoted).otherwise(pl.col("v"))).to_series()


def set_members(label: str) -> list[str] | None:
    """The members of a set label ``{...}`` (None for a label that is no set).

    A label that does not parse as quoted members (written by hand, or before members
    were quoted) is split at its commas.

    Examples
    --------
    >>> set_members('{"Austin, TX",Paris}'), set_members("{}"), set_members("[1-2]")
    (['Austin, TX', 'Paris'], [], None)
    """
    if len(label) < 2 or not (label.startswith("{") and label.endswith("}")):
        return None
    inner = label[1:-1]
    try:
        rows = list(csv.reader([inner], strict=True))
    except csv.Error:
        return inner.split(",")
    return rows[0] if rows else []


def _range_label(column: str) -> pl.Expr:
    """A class's label in a numeric column: ``[lo-hi]``."""
    lo, hi = pl.col(column).min().cast(pl.String), pl.col(column).max().cast(pl.String)
    return pl.concat_str([pl.lit("["), lo, pl.lit("-"), hi, pl.lit("]")]).alias(column)


def class_labels(
    real: pl.DataFrame, qi: list[str], numeric: Sequence[str], class_column: str
) -> pl.DataFrame:
    """Each class's label in every quasi-identifier: ``[lo-hi]`` in the numeric ones
    (:func:`_range_label`), the set ``{a,b}`` of its values in the others (members quoted
    by :func:`quote_members`). A set is read from the distinct (class, value code) pairs,
    sorted once, and written once per distinct set rather than per class; a class of
    nulls only is ``{}``."""
    ranges = [_range_label(c) for c in qi if c in numeric]
    if ranges:
        out = real.group_by(class_column).agg(ranges)
    else:
        out = real.select(class_column).unique()
    cls = real[class_column].to_numpy()
    for c in qi:
        if c in numeric:
            continue
        text = real[c].cast(pl.String)
        names = text.drop_nulls().unique().sort()
        members = quote_members(names)
        width = len(names) + 1  # the last code: null
        codes = text.cast(pl.Enum(names.to_list())).to_physical().fill_null(len(names))
        pairs = np.unique(cls * width + codes.to_numpy().astype(np.int64))
        pairs = pairs[pairs % width < len(names)]
        per_class = (
            pl.DataFrame({class_column: pairs // width, _CODE: pairs % width})
            .group_by(class_column, maintain_order=True)
            .agg(pl.col(_CODE))
        )
        distinct = per_class.select(_CODE).unique(maintain_order=True).with_row_index(_SET)
        each = distinct.explode(_CODE)
        written = (
            pl.DataFrame({_SET: each[_SET], c: members.gather(each[_CODE])})
            .group_by(_SET, maintain_order=True)
            .agg(pl.concat_str([pl.lit("{"), pl.col(c).str.join(","), pl.lit("}")]).alias(c))
        )
        sets = per_class.join(distinct, on=_CODE).join(written, on=_SET)
        out = out.join(sets.select(class_column, c), on=class_column, how="left")
        out = out.with_columns(pl.col(c).fill_null("{}"))
    return out
