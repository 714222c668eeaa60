"""anonkit beside ARX on issue 19's Adult cells, batch against batch in one session.

Timing ARX's harness and then anonkit's benchmark, minutes apart, compares two phases of
a shared machine as much as two tools: on the 2-core hosts of this project a cell's time
moves by a third from one minute to the next. This script keeps ARX in a JVM beside it
(``benchmarks/arx/ArxCells.java``, compiled into a temporary folder on start) and, for
every cell and round, runs a batch of ARX calls and a batch of anonkit calls back to
back, the first of the two alternating from round to round. Each round's ratio compares
the two batches' medians, measured seconds apart; the table gives each cell's median
times over all calls, the spread of its per-round ratios and the rounds in which anonkit
was at or below ARX's time.

Both sides are warm, as a long-running process is: every selected cell runs
``--warm-up-rounds`` times on each side before any is timed (JIT compilation for ARX,
compiled kernels for anonkit). An ARX call is ``anonymize`` then ``getOutput()``; an
anonkit call is :func:`anonkit.anonymize` with :class:`~anonkit.core.hierarchy.Hierarchy`
objects read once, as ARX gets its parsed hierarchies, and returns the verified release.
Each side reports its nodes (ARX: transformations checked), records suppressed and the
chosen levels; ``same levels`` says whether the two optima agree. ``--e2e`` adds the
end-to-end cell: Adult written 33 times into one CSV (995,346 rows, in a temporary
folder), read with the nine hierarchy files by every call on both sides (ARX:
``Data.create`` and ``Hierarchy.create`` of the files, inside the timed call), k = 5,
4 % suppression.

ARX is not part of anonkit: pass the class path of ARX 3.9.2's library and its
dependencies (a build of https://github.com/arx-deidentifier/arx and the jars of its
``lib/`` folder; ``dir/*`` entries are Java class-path wildcards)::

    PYTHONPATH=src .venv/bin/python benchmarks/vs_arx.py \\
        --arx-classpath "/path/to/arx/build:/path/to/arx/lib/*" [--cases "t=0.2"] [--record [NAME]]

``javac`` and ``java`` (17 or newer) must be on the ``PATH``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402
import anonymize_adult  # noqa: E402
import polars as pl  # noqa: E402

import anonkit  # noqa: E402
from anonkit.core.hierarchy import Hierarchy  # noqa: E402

JAVA_SOURCE = Path(__file__).resolve().parent / "arx" / "ArxCells.java"


@dataclass
class Cell:
    """One cell's calls on both sides and what each side chose."""

    name: str
    index: int  # the cell's number in the ARX harness
    kwargs: dict[str, Any]
    source: Any = None  # what anonkit reads (None: the frame read once)
    arx_ms: list[list[float]] = field(default_factory=list)  # one list per round
    ours_ms: list[list[float]] = field(default_factory=list)
    arx_choice: tuple[str, str, dict[str, int]] = ("", "", {})  # nodes, suppressed, levels
    ours_choice: tuple[str, str, dict[str, int]] = ("", "", {})

    def ratios(self) -> list[float]:
        """anonkit's median over ARX's, round by round."""
        return [
            statistics.median(o) / statistics.median(a)
            for a, o in zip(self.arx_ms, self.ours_ms, strict=True)
        ]


class ArxProcess:
    """The JVM running ``ArxCells``: ask for a batch of a cell, read its times."""

    def __init__(
        self, classpath: str, data_dir: Path, scratch: Path, big: Path | None = None
    ) -> None:
        for tool in ("javac", "java"):
            if shutil.which(tool) is None:
                raise SystemExit(f"vs_arx: {tool} is not on the PATH (Java 17 or newer)")
        compiled = subprocess.run(
            ["javac", "-d", str(scratch), "-cp", classpath, str(JAVA_SOURCE)],
            capture_output=True,
            text=True,
        )
        if compiled.returncode != 0:
            raise SystemExit(
                f"vs_arx: javac could not compile {JAVA_SOURCE.name} against the class path "
                f"{classpath!r}:\n{compiled.stderr.strip()}"
            )
        self._proc = subprocess.Popen(
            [
                "java",
                "-cp",
                classpath + os.pathsep + str(scratch),
                "ArxCells",
                str(data_dir),
                *([str(big)] if big is not None else []),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        first = self._read()
        if not first.startswith("cells "):
            raise SystemExit(f"vs_arx: the ARX harness did not start: {first!r}")
        self.cells = first[len("cells ") :].split("\t")

    def _read(self) -> str:
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            raise SystemExit(f"vs_arx: the ARX harness stopped (exit {self._proc.wait()})")
        return line.rstrip("\n")

    def batch(
        self, index: int, calls: int, untimed: int = 0
    ) -> tuple[list[float], tuple[str, str, dict[str, int]]]:
        """Milliseconds of ``calls`` calls of cell ``index`` after ``untimed`` more, and
        the last call's choice."""
        assert self._proc.stdin is not None
        self._proc.stdin.write(f"run {index} {calls} {untimed}\n")
        self._proc.stdin.flush()
        times, checked, suppressed, levels = self._read().split("\t")
        ms = [int(t) / 1e6 for t in times.split()[1:]]
        chosen = {k: int(v) for k, v in (p.split("=") for p in levels.split(",") if p)}
        return ms, (checked, suppressed, chosen)

    def close(self) -> None:
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.write("quit\n")
            self._proc.stdin.close()
            self._proc.wait(timeout=30)


def ours_batch(
    frame: Any, kwargs: dict[str, Any], calls: int, untimed: int = 0
) -> tuple[list[float], tuple[str, str, dict[str, int]]]:
    """Milliseconds of ``calls`` anonkit calls after ``untimed`` more, and the last
    call's choice."""
    ms: list[float] = []
    result = None
    for _ in range(untimed):
        anonkit.anonymize(frame, **kwargs)
    for _ in range(calls):
        t0 = time.perf_counter()
        result = anonkit.anonymize(frame, **kwargs)
        ms.append((time.perf_counter() - t0) * 1000)
    assert result is not None
    levels = {str(k): int(v) for k, v in result.transformation.items()}
    return ms, (str(result.nodes_evaluated), str(result.suppressed), levels)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--arx-classpath",
        default=os.environ.get("ARX_CLASSPATH", ""),
        help="class path of ARX 3.9.2 and its dependencies (default: $ARX_CLASSPATH)",
    )
    p.add_argument("--rounds", type=int, default=8, help="batches per cell and side")
    p.add_argument("--batch", type=int, default=5, help="timed calls per batch")
    p.add_argument(
        "--batch-warm-up",
        type=int,
        default=2,
        help="untimed calls opening each batch (each side's caches and threads back in step)",
    )
    p.add_argument("--warm-up-rounds", type=int, default=5)
    p.add_argument("--cases", default="", help="comma-separated texts a case name contains")
    p.add_argument(
        "--e2e",
        action="store_true",
        help="also the end-to-end cell: Adult 33 times over (995,346 rows) read from CSV, "
        "with the hierarchy files, by every call on both sides",
    )
    p.add_argument(
        "--record",
        nargs="?",
        const="vs_arx",
        default=None,
        metavar="NAME",
        help="write the results to RESULTS.md as section NAME (default vs_arx)",
    )
    args = p.parse_args(argv)
    if not args.arx_classpath:
        p.error("pass --arx-classpath (or set ARX_CLASSPATH): ARX is not part of anonkit")
    import numba  # noqa: F401  (compiled roll-ups from the first call, as a warm process)

    command, info = common.command_line(), common.machine_info()
    frame = pl.read_csv(common.ADULT_CSV, separator=";", infer_schema=False)
    columns = list(common.ADULT_COLUMNS)
    trees = {c: Hierarchy.from_csv(common.adult_hierarchy_path(c), name=c) for c in columns}
    wanted = [w.strip() for w in args.cases.split(",") if w.strip()]
    with tempfile.TemporaryDirectory() as scratch:
        big = anonymize_adult.write_adult_x33(Path(scratch)) if args.e2e else None
        arx = ArxProcess(args.arx_classpath, common.ADULT_DIR, Path(scratch), big)
        try:
            cells = [
                Cell(
                    name,
                    arx.cells.index(name),
                    {
                        "quasi_identifiers": columns,
                        "hierarchies": trees,
                        "others": "drop",
                        "algorithm": "flash",
                        **options,
                    },
                )
                for name, options in anonymize_adult.cases(columns)
                if not wanted or any(w in name for w in wanted)
            ]
            if big is not None:
                name = anonymize_adult.E2E_CASE
                kwargs = {
                    "quasi_identifiers": columns,
                    "others": "drop",
                    "algorithm": "flash",
                    **anonymize_adult.e2e_options(columns),
                }
                cells.append(Cell(name, arx.cells.index(name), kwargs, big))
            _run(args, arx, frame, cells)
        finally:
            arx.close()
    table = _table(cells)
    print(table)
    if args.record is not None:
        lines = common.section_preamble(
            "## anonkit beside ARX 3.9.2, batch against batch", command, info
        )
        lines += [
            "",
            f"anonkit at commit {_commit()}; {_java_version()}; ARX class path "
            f"`{args.arx_classpath}`.",
            "",
            f"{args.rounds} rounds of {args.batch} timed calls per cell and side, each batch "
            f"opened by {args.batch_warm_up} untimed ones, the side going first alternating by "
            f"round; {args.warm_up_rounds} warm-up rounds over every "
            "selected cell on each side first. Milliseconds: medians over all calls; ratio: "
            "anonkit's batch median over ARX's, per round (min / median / max); ahead: the "
            "rounds in which anonkit's batch median was at or below ARX's.",
            "",
            table,
            "",
        ]
        common.update_section(args.record, "\n".join(lines))
    return 0


def _commit() -> str:
    """The checkout's commit, marked when the tree has changes."""
    git = ["git", "-C", str(common.REPO_ROOT)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(
        [*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    )
    name = head.stdout.strip() or "unknown"
    return name + (" with uncommitted changes" if dirty.stdout.strip() else "")


def _java_version() -> str:
    """``java -version``'s first line (it prints on stderr)."""
    out = subprocess.run(["java", "-version"], capture_output=True, text=True)
    return (out.stderr.strip().splitlines() or ["java: unknown version"])[0]


def _run(args: argparse.Namespace, arx: ArxProcess, frame: pl.DataFrame, cells: list[Cell]) -> None:
    """Warm both sides, then time the rounds (progress on stderr)."""
    t0 = time.perf_counter()
    for _ in range(args.warm_up_rounds):
        for cell in cells:
            arx.batch(cell.index, 1)
            ours_batch(_source(cell, frame), cell.kwargs, 1)
    print(
        f"# warm-up: {args.warm_up_rounds} round(s) of {len(cells)} cell(s) on each side in "
        f"{time.perf_counter() - t0:.1f} s",
        file=sys.stderr,
        flush=True,
    )
    for r in range(args.rounds):
        t0 = time.perf_counter()
        for c, cell in enumerate(cells):
            sides = [
                lambda cell=cell: arx.batch(cell.index, args.batch, args.batch_warm_up),
                lambda cell=cell: ours_batch(
                    _source(cell, frame), cell.kwargs, args.batch, args.batch_warm_up
                ),
            ]
            first = (r + c) % 2
            got = {first: sides[first](), 1 - first: sides[1 - first]()}
            cell.arx_ms.append(got[0][0])
            cell.ours_ms.append(got[1][0])
            cell.arx_choice, cell.ours_choice = got[0][1], got[1][1]
        print(
            f"# round {r + 1}/{args.rounds} in {time.perf_counter() - t0:.1f} s "
            f"(load {common.load_average()})",
            file=sys.stderr,
            flush=True,
        )


def _source(cell: Cell, frame: pl.DataFrame) -> Any:
    """What anonkit reads for ``cell``: its own source (a file), else the frame."""
    return frame if cell.source is None else cell.source


def _table(cells: list[Cell]) -> str:
    rows = []
    for cell in cells:
        ratios = cell.ratios()
        ahead = sum(r <= 1.0 for r in ratios)
        arx_all = [t for b in cell.arx_ms for t in b]
        ours_all = [t for b in cell.ours_ms for t in b]
        rows.append(
            [
                cell.name,
                f"{statistics.median(arx_all):.1f}",
                f"{statistics.median(ours_all):.1f}",
                f"{min(ratios):.2f} / {statistics.median(ratios):.2f} / {max(ratios):.2f}",
                f"{ahead} of {len(ratios)}",
                f"{cell.arx_choice[0]} / {cell.ours_choice[0]}",
                f"{cell.arx_choice[1]} / {cell.ours_choice[1]}",
                "yes" if cell.arx_choice[2] == cell.ours_choice[2] else "no",
            ]
        )
    header = [
        "case",
        "ARX ms",
        "anonkit ms",
        "ratio min / median / max",
        "ahead",
        "nodes ARX / anonkit",
        "suppressed ARX / anonkit",
        "same levels",
    ]
    return common.markdown_table(header, rows, "lrrrrrrl")


if __name__ == "__main__":
    raise SystemExit(main())
