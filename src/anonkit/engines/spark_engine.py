"""The Apache Spark engine: count and release where a Spark cluster holds the records.

The records stay on the executors. Counting is a ``select`` of one lookup key per
quasi-identifier, a broadcast join of each key on the small table of its hierarchy's
leaves (key -> level-0 code), and a ``groupBy(...).count()``; only the grouped counts
(one row per distinct combination, small even for billions of records) come back to the
driver, as the polars frame :func:`~anonkit.engines.counting.check_counts` and
:func:`~anonkit.engines.counting.table_from_counts` read. The release is a Spark
DataFrame: each quasi-identifier's key is joined (broadcast) on its leaf -> label table,
and the records of suppressed classes are found by a broadcast left join on the table of
those classes' labels. pyspark is imported only when this engine runs.

Values are read as :func:`anonkit.core.values.text_expr` reads them, so that every engine
counts the same data the same way (:mod:`anonkit.engines.spark_values`: strings stripped,
floats and decimals looked up by Spark's text of the number a leaf is polars' text of, and
printed on the driver by polars where their text is needed).

Choices and known differences
-----------------------------
* Whole floats that do not fit in a 128-bit integer (``1e40``, infinities) have no
  integer text in polars (their float text); here they are values outside every hierarchy
  (:class:`~anonkit.exceptions.ValuesNotInHierarchyError`).
* Dates and timestamps are printed by Spark's cast to string, which can differ from
  :func:`~anonkit.core.values.text_expr` for timestamps (fractions of a second, time
  zones); declare such columns as strings to get the same text everywhere.
* :meth:`SparkEngine.distinct` and the values named by
  :meth:`SparkEngine.unknown_values` are in order of first appearance as far as Spark
  knows it (``monotonically_increasing_id``, which follows the partitions' order).
"""

from __future__ import annotations

import shutil
import uuid
from array import array
from collections.abc import Callable, Sequence
from functools import reduce
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from anonkit._atomic import note_commit
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.transform import SUPPRESSED, ReleasePlan
from anonkit.core.values import MISSING_CODE, UNKNOWN_CODE
from anonkit.engines.base import GroupingEngine
from anonkit.engines.counting import COUNT, KEY_SHIFT, Hierarchies, Names, key_digits, unpack_keys
from anonkit.engines.spark_csv import (
    CSV_QUOTING,
    TEXT_SUFFIXES,
    WHITESPACE,
    escape_formulas,
    read_csv,
    read_written,
    require_path,
)
from anonkit.engines.spark_frames import collect_frame, named, polars_types, spark_frame
from anonkit.engines.spark_session import quiet_spark_loggers, start_session
from anonkit.engines.spark_values import (
    driver_text,
    key_expr,
    key_table,
    leaf_keys,
    missing,
    on_driver,
    spark_value,
)
from anonkit.exceptions import UnknownColumnError
from anonkit.io.write import field_separator, local_path, output_format

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

__all__ = ["WHITESPACE", "SparkEngine", "collect_frame", "polars_types"]

_PREFIX = "__anonkit_"
_ID = f"{_PREFIX}id__"
_FLAG = f"{_PREFIX}suppressed__"


def _code_name(j: int) -> str:
    return f"{_PREFIX}code{j}__"


def _label_name(j: int) -> str:
    return f"{_PREFIX}label{j}__"


#: Grouped counts key each combination of codes by one 64-bit integer when the product of
#: the hierarchies' sizes stays at most this; otherwise they group by one column per code.
PACK_LIMIT = 2**62
#: Hierarchies with at most this many leaves are looked up in a map literal (each record
#: scans it); larger ones by a broadcast hash join.
MAP_LEAVES = 64


def _lookup(
    frame: DataFrame,
    column: str,
    hierarchy: Hierarchy,
    values: Sequence[Any],
    value_type: str,
    out: str,
) -> DataFrame:
    """``frame`` with ``values[leaf]`` of each record's value of ``column`` in column
    ``out`` (null for a value that is not a leaf), by a map literal for small
    hierarchies and a broadcast join for large ones."""
    from pyspark.sql import functions as F

    dtype = frame.schema[column].dataType
    key = key_expr(column, dtype)
    if len(hierarchy.leaves) <= MAP_LEAVES:
        keys = leaf_keys(dtype, hierarchy.leaves)
        pairs = [x for i, k in keys for x in (k, F.lit(values[i]).cast(value_type))]
        found = F.try_element_at(F.create_map(*pairs), key) if pairs else F.lit(None)
        return frame.withColumn(out, found.cast(value_type))
    join = f"{out}key__"
    table = key_table(frame.sparkSession, dtype, hierarchy.leaves, values, value_type, join, out)
    joined = frame.withColumn(join, key).join(F.broadcast(table), on=join, how="left")
    return joined.drop(join)


class SparkEngine(GroupingEngine):
    """Count and release with Apache Spark: the records never leave the cluster.

    Parameters
    ----------
    session
        The Spark session that reads paths and builds the lookup tables; by default the
        source DataFrame's session, else the active one, else one started here
        (:func:`~anonkit.engines.spark_session.start_session`: no stage bars, no error
        logs, and a local session's Python workers run this interpreter).

    Notes
    -----
    Sources are Spark DataFrames, or paths the session reads: Parquet, or CSV (a path
    ending in ``.csv``, ``.csv.gz`` or ``.tsv``; a header line, every column text, read
    as anonkit reads files: :func:`~anonkit.engines.spark_csv.read_csv`). Paths
    are passed to Spark as given, so ``hdfs://`` and ``s3a://`` paths work wherever the
    cluster can read them. :meth:`apply` returns a Spark DataFrame, for the caller to
    write.
    """

    name = "spark"
    in_memory = False
    _fit_caches: tuple[str, ...] = ("_csv",)

    def __init__(self, session: SparkSession | None = None) -> None:
        quiet_spark_loggers()  # a user's session too: anonkit tells errors by their type
        self.session = session
        self._csv: dict[str, DataFrame] = {}

    def __getstate__(self) -> dict[str, Any]:
        # a session belongs to its process: a loaded engine uses the active one
        return {**super().__getstate__(), "session": None}

    def frame(self, source: Any, columns: Sequence[str] = ()) -> DataFrame:
        """``source`` as a Spark DataFrame (paths are read by the session).

        Raises
        ------
        UnknownColumnError
            If the frame lacks one of ``columns``.
        """
        df = self._read(source)
        lacking = [c for c in columns if c not in df.columns]
        if lacking:
            raise UnknownColumnError(lacking, df.columns)
        return df

    def _read(self, source: Any) -> DataFrame:
        from pyspark.sql import DataFrame

        if isinstance(source, DataFrame):
            return source
        if isinstance(source, (str, Path)):
            path = str(source)
            session = self._session()
            if path.lower().endswith(TEXT_SUFFIXES):
                # read (and checked) once per fit, as anonkit reads CSV (spark_csv.py)
                if path not in self._csv:
                    self._csv[path] = read_csv(session, path)
                return self._csv[path]
            require_path(path)  # Spark's error would not name it
            return session.read.parquet(path)
        if isinstance(source, pl.DataFrame):  # a population read into memory (the CLI's)
            return spark_frame(self._session(), source)
        kind = type(source).__name__
        raise TypeError(f"the spark engine reads Spark DataFrames or paths, not {kind}")

    def _session(self) -> SparkSession:
        from pyspark.sql import SparkSession

        if self.session is not None:
            return self.session
        active = SparkSession.getActiveSession()
        return active if active is not None else start_session()

    def _codes(
        self, df: DataFrame, columns: Sequence[str], hierarchies: Sequence[Hierarchy]
    ) -> DataFrame:
        """``df`` with each quasi-identifier's level-0 code in :func:`_code_name`."""
        from pyspark.sql import functions as F

        types = {f.name: f.dataType for f in df.schema.fields}
        keyed = df
        for j, (c, h) in enumerate(zip(columns, hierarchies, strict=True)):
            codes = list(range(len(h.leaves)))
            keyed = _lookup(keyed, c, h, codes, "bigint", _code_name(j))
        return keyed.select(
            "*",
            *[
                F.when(missing(c, types[c]), F.lit(MISSING_CODE))
                .otherwise(F.coalesce(F.col(_code_name(j)), F.lit(UNKNOWN_CODE)))
                .alias(c + _PREFIX)
                for j, c in enumerate(columns)
            ],
        )

    def group_counts(
        self, source: Any, columns: Names, hierarchies: Hierarchies, sensitive: Names = ()
    ) -> pl.DataFrame:
        from pyspark.sql import functions as F

        df = self.frame(source, [*columns, *sensitive])
        types = {f.name: f.dataType for f in df.schema.fields}
        coded = self._codes(df, columns, hierarchies)
        sens = [spark_value(c, types[c]).alias(f"{_PREFIX}s{i}__") for i, c in enumerate(sensitive)]
        # one 64-bit key per combination when the codes fit (faster to shuffle and group)
        digits = key_digits(hierarchies, limit=PACK_LIMIT + 1)
        packed = digits is not None
        if digits is not None:
            key = sum(
                (
                    (named(c + _PREFIX) + KEY_SHIFT) * F.lit(step).cast("bigint")
                    for c, step in zip(columns, digits[1], strict=True)
                ),
                F.lit(0).cast("bigint"),
            )
            keys = [key.alias(_ID)]
        else:
            keys = [named(c + _PREFIX).alias(c) for c in columns]
        names = [f"{_PREFIX}s{i}__" for i in range(len(sensitive))]
        grouped = (
            coded.select(*keys, *sens)
            .groupBy(*([F.col(_ID)] if packed else map(named, columns)), *names)
            .agg(F.count(F.lit(1)).alias(COUNT))
        )
        # rows arrive partition by partition into compact buffers: the driver never holds
        # every grouped row as a Python object at once
        width = 1 if packed else len(columns)
        ints = [array("q") for _ in range(width + 1)]
        texts: list[list[Any]] = [[] for _ in sensitive]
        for row in grouped.toLocalIterator(prefetchPartitions=True):
            for j in range(width):
                ints[j].append(row[j])
            for i in range(len(sensitive)):
                texts[i].append(row[width + i])
            ints[width].append(row[-1])
        data: dict[str, Any] = {}
        if digits is not None:
            codes = unpack_keys(np.array(ints[0], dtype=np.int64), columns, digits)
            for c in columns:
                data[c] = pl.Series(c, codes[c], dtype=pl.Int64)
        else:
            for j, c in enumerate(columns):
                data[c] = pl.Series(c, np.array(ints[j], dtype=np.int64), dtype=pl.Int64)
        for i, s in enumerate(sensitive):
            raw = texts[i]
            text = driver_text(raw, types[s])
            data[s] = pl.Series(s, text, dtype=pl.String)
        data[COUNT] = pl.Series(COUNT, np.array(ints[width], dtype=np.int64), dtype=pl.Int64)
        counts = pl.DataFrame(data)
        if any(on_driver(types[s]) for s in sensitive):
            # two numbers never print alike, but regroup in case (whole floats past 2^63)
            counts = counts.group_by([*columns, *sensitive]).agg(pl.col(COUNT).sum())
        return counts

    def _first_seen(self, df: DataFrame, value: Column) -> DataFrame:
        """The distinct values of ``value`` (column ``v``), in order of first appearance."""
        from pyspark.sql import functions as F

        return (
            df.select(value.alias("v"), F.monotonically_increasing_id().alias(_ID))
            .groupBy("v")
            .agg(F.min(_ID).alias(_ID))
        )

    def unknown_values(
        self, source: Any, column: str, hierarchy: Hierarchy
    ) -> tuple[list[str], int]:
        from pyspark.sql import functions as F

        df = self.frame(source, [column])
        dtype = df.schema[column].dataType
        value = spark_value(column, dtype)
        present = df.filter(~missing(column, dtype)).select(named(column), value.alias(_ID))
        known = [True] * len(hierarchy.leaves)
        found = _lookup(present, column, hierarchy, known, "boolean", _FLAG)
        unknown = found.filter(F.col(_FLAG).isNull())
        seen = self._first_seen(unknown, F.col(_ID))
        total = seen.count()
        first = [r["v"] for r in seen.orderBy(_ID).limit(10).collect()]
        first = driver_text(first, dtype)
        return [str(v) for v in first], int(total)

    def distinct(self, source: Any, column: str) -> list[str]:
        df = self.frame(source, [column])
        dtype = df.schema[column].dataType
        value = spark_value(column, dtype)
        seen = self._first_seen(df.filter(~missing(column, dtype)), value).collect()
        values = [r["v"] for r in sorted(seen, key=lambda r: int(r[_ID]))]
        values = driver_text(values, dtype)
        return [str(v) for v in dict.fromkeys(values) if v is not None]

    def apply(self, source: Any, plan: ReleasePlan) -> DataFrame:
        """The release of ``source`` under ``plan``, as a Spark DataFrame (columns in
        the source's order, ``plan.drop`` left out; suppressed records masked with ``*``
        or dropped, as the plan says).

        Every value of a quasi-identifier must be a leaf of its hierarchy (the count that
        led to the plan checked it).
        """
        from pyspark.sql import functions as F

        df = self.frame(source, plan.columns)
        order = [c for c in df.columns if c not in set(plan.drop)]
        cols = list(plan.columns)
        out = df
        for j, (c, h) in enumerate(zip(cols, plan.hierarchies, strict=True)):
            out = _lookup(out, c, h, plan.leaf_labels(j), "string", _label_name(j))
        out = out.select(
            *[named(c) for c in df.columns if c not in cols],
            *[F.col(_label_name(j)).alias(c) for j, c in enumerate(cols)],
        )
        if plan.suppresses:
            rows = [(*labels, True) for labels in zip(*plan.suppressed_labels, strict=True)]
            schema = ", ".join(f"`{_label_name(j)}` string" for j in range(len(cols)))
            bad = df.sparkSession.createDataFrame(rows, f"{schema}, `{_FLAG}` boolean")
            bad = bad.select(
                *[F.col(_label_name(j)).alias(c) for j, c in enumerate(cols)], F.col(_FLAG)
            )
            out = out.join(F.broadcast(bad), on=cols, how="left")
            hit = F.col(_FLAG).isNotNull()
            if plan.suppressed == "drop":
                out = out.filter(~hit)
            else:
                star = F.lit(SUPPRESSED)
                out = out.select(
                    *[named(c) for c in out.columns if c not in cols],
                    *[F.when(hit, star).otherwise(named(c)).alias(c) for c in cols],
                )
        return out.select(*map(named, order))

    def columns(self, source: Any) -> list[str]:
        return list(self.frame(source).columns)

    def head(self, source: Any, n: int) -> pl.DataFrame:
        return collect_frame(self.frame(source).limit(n))

    def sample(self, source: Any, n: int) -> pl.DataFrame:
        frame = self.frame(source)
        total = frame.count()
        if total <= n:
            return collect_frame(frame)
        # a Bernoulli sample over every partition (a seeded one: runs repeat)
        return collect_frame(frame.sample(withReplacement=False, fraction=n / total, seed=0))

    def drop_suppressed(self, release: Any, columns: Sequence[str]) -> Any:
        from pyspark.sql import functions as F

        star = reduce(lambda a, b: a & b, [named(c) == F.lit(SUPPRESSED) for c in columns])
        return self.frame(release).filter(~F.coalesce(star, F.lit(False)))

    def tally(self, frame: Any, columns: Sequence[str]) -> pl.DataFrame:
        from pyspark.sql import functions as F

        df = self.frame(frame, columns)
        grouped = df.groupBy(*map(named, columns)).agg(F.count(F.lit(1)).alias(COUNT))
        return collect_frame(grouped).cast({COUNT: pl.Int64})

    def read_text(self, path: str | Path, **read: Any) -> DataFrame:
        """A CSV/TSV file read with anonkit's reading options ``read`` (``separator``,
        ``encoding``, ``missing``, ``strip``: a configuration's ``[read]``), by this
        engine's session; see :func:`~anonkit.engines.spark_csv.read_csv`."""
        return read_csv(self._session(), path, **read)

    def read(self, path: str | Path, *, separator: str | None = None) -> DataFrame:
        # a release this engine wrote (UTF-8, with ``separator``): no input checks to repeat
        if separator is not None or str(path).lower().endswith((".csv", ".csv.gz")):
            return read_written(self._session(), path, separator or ",")
        return self.frame(path)

    def write(
        self,
        release: Any,
        path: str | Path,
        check: Callable[[DataFrame], None] | None = None,
        *,
        separator: str | None = None,
    ) -> None:
        """Write ``release`` as a Spark output directory at ``path`` (Parquet, or CSV/TSV
        with a header line and formula-like cells escaped, as the extension says; CSV and
        TSV with ``separator``, by default ``,`` and tab).

        Spark writes to a hidden sibling directory, which is renamed to ``path`` once the
        job has committed (an existing ``path`` is replaced); a failed job leaves
        ``path`` as it was. ``check``, when given, is called before the rename with what
        was written, read back (Parquet, or CSV with every column as text), to verify it;
        if it raises, nothing is renamed and the hidden directory is removed.

        Raises
        ------
        OutputFormatError
            If the extension names no supported format.
        """
        target = str(path)
        fmt = output_format(target)
        df = self.frame(release)
        session = df.sparkSession
        parent, _, name = target.rstrip("/").rpartition("/")
        tmp = f"{parent}/.{name}.{uuid.uuid4().hex}.tmp" if parent else f".{name}.tmp"
        jvm = session._jvm  # noqa: SLF001 - Hadoop's FileSystem has no Python API
        assert jvm is not None
        hadoop = jvm.org.apache.hadoop.fs.Path
        fs = hadoop(target).getFileSystem(session._jsc.hadoopConfiguration())  # noqa: SLF001
        sep = field_separator(fmt, separator)
        try:
            if fmt == "parquet":
                df.write.mode("errorifexists").parquet(tmp)
            else:
                writer = escape_formulas(df).write.mode("errorifexists").options(**_CSV_TIMES)
                writer.csv(  # Spark trims cells when it writes unless told not to
                    tmp, header=True, sep=sep, ignoreLeadingWhiteSpace=False,
                    ignoreTrailingWhiteSpace=False, **CSV_QUOTING,
                )  # fmt: skip
            if check is not None:
                if fmt == "parquet":
                    check(session.read.parquet(tmp))
                else:
                    check(read_written(session, tmp, sep))
            if fs.exists(hadoop(target)):
                fs.delete(hadoop(target), True)
            if not fs.rename(hadoop(tmp), hadoop(target)):
                raise OSError(f"could not rename Spark's output to {target!r}")
            if "://" not in target:  # a local folder: a Ctrl-C from now on names it
                note_commit(target)
        finally:
            _remove_tmp(fs, hadoop, tmp)


#: Timestamps written to the microsecond, as the other engines write them (Spark's
#: default cuts them to milliseconds).
_CSV_TIMES = {
    "timestampFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX",
    "timestampNTZFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSS",
}


def _remove_tmp(fs: Any, hadoop: Any, tmp: str) -> None:
    """Remove Spark's hidden output folder ``tmp``. After a stop signal the JVM gateway
    may refuse calls (a ``Py4JError``): a local folder is then removed from Python."""
    try:
        if fs.exists(hadoop(tmp)):
            fs.delete(hadoop(tmp), True)
        return
    except Exception:  # noqa: BLE001 - py4j's errors once the gateway is interrupted
        if "://" in tmp and not tmp.startswith("file:"):
            raise
    shutil.rmtree(local_path(tmp), ignore_errors=True)
