"""The engine contract and registry: where the records are counted and released.

The full-domain search never sees a record. It works on frequency snapshots (one row per
distinct combination of quasi-identifier codes), so the records are touched twice: once
to count them, once to write the release. An engine does both where the data lives:

``count``
    the bottom snapshot of the quasi-identifiers (:class:`~anonkit.core.encoding.EncodedTable`);
``count_detail``
    the same, with the sensitive values and population counts the privacy models read;
``distinct``
    the distinct (normalized) values of a column, for building hierarchies;
``apply``
    the release of a :class:`~anonkit.core.transform.ReleasePlan`, in the engine's own
    frame type (a polars frame, a lazy query, a Spark DataFrame);
``columns``, ``head``, ``tally``, ``write``, ``read``
    what the fit needs besides: the column names, a first slice of records for the leak
    check, a release counted by its released values for the independent verification,
    the release written to a file atomically, and a written release read back.

Every engine reports the same errors for the same data (missing values, values outside
a hierarchy, an empty table): :class:`GroupingEngine` derives ``count`` and
``count_detail`` from one grouped count an engine provides, so an engine implements a
group-by, not the rules. Algorithms that work record by record (Mondrian, greedy
merging, microaggregation, local suppression) need the records in memory; engines that
do not hold them say so with ``in_memory = False``. Optional engines (``spark``) are
imported only when asked for.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import polars as pl

from anonkit._formats import require_file
from anonkit.core.encoding import EncodedTable
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import HierarchySpec, built_from_values, resolve_hierarchy
from anonkit.core.transform import ReleasePlan, all_starred
from anonkit.engines.counting import (
    COUNT,
    Hierarchies,
    Names,
    SensitiveSpec,
    Specs,
    check_counts,
    table_from_counts,
)
from anonkit.exceptions import (
    POPULATION_TABLE,
    EmptyDataError,
    MissingValuesError,
    UnknownNameError,
)

__all__ = [
    "COUNT",
    "ENGINE_CHOICES",
    "Engine",
    "GroupingEngine",
    "SensitiveSpec",
    "available_engines",
    "choose_engine",
    "memory_bytes",
    "get_engine",
    "resolve_hierarchies",
    "sample_step",
]


class Engine(Protocol):
    """Count records and write releases where the data lives."""

    name: str
    #: Whether the records sit in this process's memory (record-level algorithms need it).
    in_memory: bool

    def count(
        self, source: Any, columns: Sequence[str], hierarchies: Sequence[Hierarchy]
    ) -> EncodedTable:
        """The bottom snapshot of ``columns`` of ``source``, encoded against ``hierarchies``.

        Raises
        ------
        EmptyDataError
            If ``source`` holds no record.
        MissingValuesError
            If a quasi-identifier holds nulls.
        ValuesNotInHierarchyError
            If a value is not a leaf of its column's hierarchy.
        """
        ...

    def count_detail(
        self,
        source: Any,
        columns: Names,
        hierarchies: Hierarchies,
        sensitive: Specs = (),
        population: Any = None,
    ) -> EncodedTable:
        """:meth:`count`, plus the detail snapshot over the quasi-identifiers and the
        sensitive attributes, with the population's counts when ``population`` is given."""
        ...

    def distinct(self, source: Any, column: str) -> list[str]:
        """The distinct normalized values of ``column`` (missing values left out)."""
        ...

    def apply(self, source: Any, plan: ReleasePlan) -> Any:
        """The release of ``source`` under ``plan``, in the engine's frame type."""
        ...

    def apply_tallied(
        self, source: Any, plan: ReleasePlan, sensitive: Names, count: str
    ) -> tuple[Any, pl.DataFrame | None]:
        """:meth:`apply`, and the release's :meth:`tally` over the quasi-identifiers and
        ``sensitive`` (records in ``count``) when the engine counts it from what it wrote
        the release from, without reading the release again; else ``None``."""
        ...

    def columns(self, source: Any) -> list[str]:
        """The column names of ``source``."""
        ...

    def head(self, source: Any, n: int) -> pl.DataFrame:
        """The first ``n`` records of ``source``, in memory."""
        ...

    def sample(self, source: Any, n: int) -> pl.DataFrame:
        """About ``n`` records spread over the whole of ``source`` (every
        :func:`sample_step`-th one, or on Spark a random share), in memory: what the leak
        check reads of a table too large to hold, wherever in it a column changes."""
        ...

    def tally(self, frame: Any, columns: Sequence[str]) -> pl.DataFrame:
        """One row per distinct combination of ``columns`` of ``frame`` (values as they
        are), with the number of records in ``COUNT``."""
        ...

    def write(self, release: Any, path: Path, *, separator: str | None = None) -> None:
        """Write ``release`` (what :meth:`apply` returned) to ``path``, in the format its
        extension names (CSV and TSV with ``separator``: by default ``,`` and tab);
        nothing is left at ``path`` if the write fails."""
        ...

    def read(self, path: Path, *, separator: str | None = None) -> Any:
        """A file :meth:`write` wrote (with ``separator``), in the engine's frame type
        (lazily when it can)."""
        ...

    def drop_suppressed(self, release: Any, columns: Names) -> Any:
        """``release`` (what :meth:`read` returned) without the records at ``*`` in every
        one of ``columns``: a verified masked release, as published with suppressed
        records dropped."""
        ...


class GroupingEngine:
    """``count`` and ``count_detail`` from one grouped count.

    Subclasses implement :meth:`group_counts` (one pass over the records) and
    :meth:`unknown_values` (asked only when a value is missing from a hierarchy, to name
    it in the error).
    """

    name = "grouping"
    in_memory = True
    #: Attributes that remember the current fit's frames and queries (weakly), for speed
    #: and error messages: a pickled or copied engine starts them empty.
    _fit_caches: tuple[str, ...] = ()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        for name in self._fit_caches:
            state[name] = type(state[name])()
        return state

    def group_counts(
        self, source: Any, columns: Names, hierarchies: Hierarchies, sensitive: Names = ()
    ) -> pl.DataFrame:
        """One row per distinct combination: the quasi-identifiers' level-0 codes (Int64;
        :data:`~anonkit.core.values.UNKNOWN_CODE` / :data:`~anonkit.core.values.MISSING_CODE`
        for values outside the hierarchy / missing), the sensitive columns' normalized
        text (String, null when missing) and the number of records in ``COUNT``."""
        raise NotImplementedError

    def unknown_values(
        self, source: Any, column: str, hierarchy: Hierarchy
    ) -> tuple[list[str], int]:
        """Up to ten distinct values of ``column`` that ``hierarchy`` lacks, and how many
        distinct ones there are in all."""
        raise NotImplementedError

    def drop_suppressed(self, release: Any, columns: Names) -> Any:
        """See :meth:`Engine.drop_suppressed` (a polars frame or lazy query)."""
        return release.filter(~all_starred(columns))

    def apply(self, source: Any, plan: ReleasePlan) -> Any:
        """See :meth:`Engine.apply`."""
        raise NotImplementedError

    def apply_tallied(
        self, source: Any, plan: ReleasePlan, sensitive: Names, count: str
    ) -> tuple[Any, pl.DataFrame | None]:
        """:meth:`apply`, without a tally: the verification counts the release itself."""
        return self.apply(source, plan), None

    def count(
        self, source: Any, columns: Sequence[str], hierarchies: Sequence[Hierarchy]
    ) -> EncodedTable:
        counts = self.group_counts(source, columns, hierarchies)
        check_counts(
            counts,
            columns,
            (),
            lambda j: self._unknown(source, columns, hierarchies, j),
            hierarchies,
        )
        return table_from_counts(counts, columns, hierarchies, detailed=False)

    def count_detail(
        self,
        source: Any,
        columns: Names,
        hierarchies: Hierarchies,
        sensitive: Specs = (),
        population: Any = None,
    ) -> EncodedTable:
        if sensitive and population is None:
            direct = self._direct_detail(source, columns, hierarchies, sensitive)
            if direct is not None:
                return direct
        names = [s.name for s in sensitive]
        counts = self.group_counts(source, columns, hierarchies, names)
        check_counts(
            counts,
            columns,
            names,
            lambda j: self._unknown(source, columns, hierarchies, j),
            hierarchies,
        )
        pop = None
        if population is not None:
            pop = self.group_counts(population, columns, hierarchies)
            check_counts(
                pop,
                columns,
                (),
                lambda j: self._unknown(population, columns, hierarchies, j),
                hierarchies,
                table=POPULATION_TABLE,
            )
        return table_from_counts(counts, columns, hierarchies, sensitive, pop)

    def _direct_detail(
        self, source: Any, columns: Names, hierarchies: Hierarchies, sensitive: Specs
    ) -> EncodedTable | None:
        """The detail count of ``source`` built without the grouped count of texts in
        between, where the engine can (the default cannot): ``None`` sends
        :meth:`count_detail` down the general path, which also names bad values."""
        return None

    def _unknown(
        self, source: Any, columns: Sequence[str], hierarchies: Sequence[Hierarchy], j: int
    ) -> tuple[list[str], int]:
        return self.unknown_values(source, columns[j], hierarchies[j])


def sample_step(total: int, n: int) -> int:
    """Every how many records a sample of about ``n`` of ``total`` takes one (1: all).

    Examples
    --------
    >>> sample_step(1_000, 200), sample_step(150, 200), sample_step(1_001, 200)
    (5, 1, 6)
    """
    return max(1, -(-total // max(1, n)))


def resolve_hierarchies(
    engine: Engine,
    source: Any,
    columns: Sequence[str],
    specs: Mapping[str, HierarchySpec],
    population: Any = None,
) -> list[Hierarchy]:
    """Each column's hierarchy (:func:`~anonkit.core.resolve.resolve_hierarchy`) for data
    ``engine`` reads: one built from the data (no spec, or a builder table) reads the
    column's distinct values through the engine, and the population's too when given.

    Raises
    ------
    MissingValuesError
        Counting records (not distinct values), as the run in memory does, when a
        hierarchy is to be built from a column with blank or NaN values, or with no
        value at all (null or NaN in every record: a Null-typed Parquet column).
    EmptyDataError
        If ``source`` has no records and a hierarchy is to be built from them.
    """
    out = []
    for c in columns:
        spec = specs.get(c)
        values: list[str] = []
        if built_from_values(spec):
            values = engine.distinct(source, c)
            if not values:  # nothing to build from: say why, not the builder's 'Got []'
                records = int(engine.tally(source, [c]).get_column(COUNT).sum())
                raise MissingValuesError(c, records) if records else EmptyDataError()
            if population is not None:
                values = list(dict.fromkeys([*values, *engine.distinct(population, c)]))
        try:
            out.append(resolve_hierarchy(c, spec, pl.Series(c, values, dtype=pl.String)))
        except MissingValuesError as err:  # counted on the distinct values: count records
            blank = _blank_records(engine.tally(source, [c]), c)
            raise (MissingValuesError(c, blank) if blank else err) from None
    return out


def _blank_records(tally: pl.DataFrame, column: str) -> int:
    """The records of ``tally`` (:meth:`Engine.tally` of ``column``) whose value is
    blank or NaN, as :func:`~anonkit.core.resolve.resolve_hierarchy` counts them."""
    values = tally.get_column(column)
    gone = values.cast(pl.String).str.strip_chars() == ""
    if values.dtype.is_float():
        gone = gone | values.is_nan()
    return int(tally.get_column(COUNT).filter(gone.fill_null(False)).sum())


#: The engine names offered to users: ``"auto"`` chooses one of the others (``"numpy"``,
#: a test path, is accepted but not offered).
ENGINE_CHOICES = ("auto", "polars", "spark", "streaming")
_ENGINES: dict[str, str] = {
    "polars": "anonkit.engines.polars_engine:PolarsEngine",
    "streaming": "anonkit.engines.streaming_engine:StreamingEngine",
    "numpy": "anonkit.engines.numpy_engine:NumpyEngine",
    "spark": "anonkit.engines.spark_engine:SparkEngine",
}


def memory_bytes() -> int:
    """This machine's physical memory, in bytes (0 when the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 0


#: How much larger than its CSV file a table is in memory, roughly.
_CSV_EXPANSION = 1.5
#: Bytes a cell takes in memory by its Parquet type at the least: a number its width,
#: text (and any other type) a polars string view, 16 bytes, whatever its size in the
#: file (a dictionary-encoded column can be a hundred times smaller on disk).
_CELL_BYTES = {pl.Boolean: 1, pl.Int8: 1, pl.UInt8: 1, pl.Int16: 2, pl.UInt16: 2}
#: Records of a Parquet file read to measure a record's size in memory (long text).
_SAMPLE_ROWS = 10_000
#: How many times its table a run in memory peaks at (Adult-like tables of 3 million
#: rows: a table of 0.2 GiB, peaks of 1.4 to 1.6 GiB).
_PEAK = 7.0


def _table_bytes(path: Path) -> float:
    """The bytes the table in ``path`` takes in memory, roughly: a Parquet file's row
    count (its metadata) times a record's size, the larger of its column types' least
    and of its first records' measured size; a text file's size times 1.5."""
    if path.suffix.lower() not in (".parquet", ".pq"):
        return path.stat().st_size * _CSV_EXPANSION
    scan = pl.scan_parquet(path)
    rows = scan.select(pl.len()).collect().item()
    width = 0
    for dtype in pl.read_parquet_schema(path).values():
        if dtype.is_numeric() or dtype.is_temporal():
            width += _CELL_BYTES.get(dtype.base_type(), 8)
        else:
            width += _CELL_BYTES.get(dtype.base_type(), 16)
    head = scan.head(_SAMPLE_ROWS).collect()
    measured = head.estimated_size() / head.height if head.height else 0.0
    return float(rows * max(width, measured))


def choose_engine(source: Any, memory_share: float = 0.25) -> tuple[str, str]:
    """The engine ``engine="auto"`` runs on ``source``, and why.

    A Spark DataFrame runs on Spark; a polars lazy query is streamed; a file is streamed
    when a run in memory would peak above ``memory_share`` of this machine's memory
    (estimated from the table it holds: a Parquet file's rows and column types, a text
    file's size), and read into memory otherwise; frames in memory stay there.

    Raises
    ------
    InputFileError
        If the file does not exist.
    """
    if type(source).__module__.startswith("pyspark"):
        return "spark", "the input is a Spark DataFrame"
    if isinstance(source, pl.LazyFrame):
        return "streaming", "the input is a lazy query"
    if isinstance(source, (str, Path)):
        path = Path(source)
        require_file(path)
        estimate = _table_bytes(path) * _PEAK
        budget = memory_share * memory_bytes()
        gib = estimate / 2**30
        if budget and estimate > budget:
            return "streaming", (
                f"a run in memory would peak at about {gib:.1f} GiB, more than "
                f"{memory_share:.0%} of this machine's memory"
            )
        return "polars", f"the file fits in memory (a run there peaks at about {gib:.2f} GiB)"
    return "polars", "the input is a table in memory"


def available_engines() -> list[str]:
    """Names of the registered engines."""
    return sorted(_ENGINES)


def get_engine(name: str = "polars") -> Engine:
    """Instantiate the engine registered under ``name`` (its module imported now).

    Raises
    ------
    UnknownNameError
        If no engine is registered under ``name``; it lists the registered ones.
    """
    if not (isinstance(name, str) and name in _ENGINES):
        raise UnknownNameError("engine", name, list(ENGINE_CHOICES))
    module_name, _, attr = _ENGINES[name].partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    engine: Engine = cls()
    return engine
