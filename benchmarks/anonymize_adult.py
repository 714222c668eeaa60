"""Whole ``anonymize()`` calls on Adult, with the encode / search / release breakdown.

The lattice benchmarks time the search on a table encoded once; users pay for the whole
call: reading the frame, counting, searching, writing and verifying the release. This
script times that call in one process (warm: the first call of each case is not timed)
for the cells of issue 19's comparison with ARX, and reports per case the median wall
time and the median of each stage of ``result.timing`` (``other`` is the rest of the
call: roles, hierarchies, leak check, verification, risk):

* 9 quasi-identifiers, metric ``loss``, k = 2, 5, 10, 50, 100, at 0 % and 4 % suppression;
* 8 quasi-identifiers with ``occupation`` sensitive, k = 5, metric ``height``: entropy
  ℓ = 3 and recursive (4, 3) ℓ-diversity at 5 % suppression; distinct ℓ = 3, entropy,
  recursive, equal and hierarchical t = 0.2 at 0 %;
* with ``--e2e``, the end-to-end cell: Adult written 33 times into one CSV (995,346
  rows, in a temporary folder), then ``anonymize(path, ...)`` reads it strictly, with the
  hierarchy files, 9 quasi-identifiers, k = 5, 4 % suppression.

Besides wall time, each case reports the median CPU time of the calls (``time.process_time``:
every thread of the process, polars' workers included), which a loaded machine distorts
far less than wall time. ``--kernels compiled`` loads numba before timing, so that
roll-ups run the compiled kernels from the first call (the steady state of a long-running
process; a fresh process runs numpy until enough work repays loading numba, see
:func:`anonkit.core.grouping.compiled_ready`). ``--warm-up-rounds N`` first runs every
selected case N times, untimed, as issue 19's ARX harness warms its JIT on every cell
before timing; whether that work loaded the compiled kernels on its own is printed.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/anonymize_adult.py [--repeats 15] [--record]

``--hierarchy-objects`` passes :class:`~anonkit.core.hierarchy.Hierarchy` objects read
once instead of the files' paths (which every call reads and hashes, about 0.7 ms for the
nine files), as the ARX harness of issue 19 hands ARX its parsed hierarchies.
``--scale N`` runs the cases on Adult repeated ``N`` times in memory (``--scale 33``:
995,346 records), where the per-record work outweighs the fixed cost of a call.
``--cases`` keeps the cases whose name contains one of the given texts; ``--json``
prints one JSON object per case (for interleaved before/after runs); ``--record`` writes
the section ``anonymize_adult`` of ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402
import polars as pl  # noqa: E402

import anonkit  # noqa: E402
from anonkit.core.hierarchy import Hierarchy  # noqa: E402
from anonkit.models import (  # noqa: E402
    DistinctLDiversity,
    EntropyLDiversity,
    EqualDistanceTCloseness,
    HierarchicalTCloseness,
    RecursiveCLDiversity,
)

SENSITIVE = "occupation"
STAGES = ("encode", "search", "release")


def cases(columns: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """Issue 19's cells: name and the keywords of :func:`anonkit.anonymize`."""
    out: list[tuple[str, dict[str, Any]]] = []
    for supp in (0.0, 0.04):
        for k in (2, 5, 10, 50, 100):
            out.append((f"9 QIs loss k={k} {supp:.0%}", {"k": k, "suppression_limit": supp}))
    qi = [c for c in columns if c != SENSITIVE]
    tree = Hierarchy.from_csv(common.adult_hierarchy_path(SENSITIVE), name=SENSITIVE)
    models = {
        "distinct l=3": DistinctLDiversity(SENSITIVE, 3),
        "entropy l=3": EntropyLDiversity(SENSITIVE, 3),
        "recursive (4,3)": RecursiveCLDiversity(SENSITIVE, 4, 3),
        "equal t=0.2": EqualDistanceTCloseness(SENSITIVE, 0.2),
        "hierarchical t=0.2": HierarchicalTCloseness(SENSITIVE, 0.2, hierarchy=tree),
    }
    cells = [(name, 0.0) for name in models]
    cells += [("entropy l=3", 0.05), ("recursive (4,3)", 0.05)]
    for name, supp in cells:
        out.append(
            (
                f"8 QIs k=5 height {name} {supp:.0%}",
                {
                    "k": 5,
                    "suppression_limit": supp,
                    "metric": "height",
                    "quasi_identifiers": qi,
                    "sensitive": [SENSITIVE],
                    "privacy": [models[name]],
                },
            )
        )
    return out


#: The end-to-end cell: Adult written 33 times into one CSV, read by every call.
E2E_CASE = "Adult x33 (995,346 rows) from CSV k=5 4%"


def write_adult_x33(folder: Path) -> Path:
    """Adult's records written 33 times into ``folder/adult_x33.csv`` (995,346 rows)."""
    big = folder / "adult_x33.csv"
    text = common.ADULT_CSV.read_text(encoding="utf-8").splitlines(keepends=True)
    with big.open("w", encoding="utf-8") as fh:
        fh.write(text[0])
        for _ in range(33):
            fh.writelines(text[1:])
    return big


def e2e_options(columns: list[str]) -> dict[str, Any]:
    """The end-to-end cell's keywords: the hierarchy files are read by the call, whatever
    ``--hierarchy-objects`` says."""
    files = {c: common.adult_hierarchy_path(c) for c in columns}
    return {"k": 5, "suppression_limit": 0.04, "hierarchies": files}


def time_calls(frame: Any, kwargs: dict[str, Any], repeats: int) -> dict[str, Any]:
    """Median wall and CPU time of ``repeats`` warm :func:`anonkit.anonymize` calls and of
    each stage of their ``result.timing``, in ms; the last call's nodes and cost."""
    anonkit.anonymize(frame, **kwargs)  # warm-up
    walls: list[float] = []
    cpus: list[float] = []
    stages: dict[str, list[float]] = {s: [] for s in (*STAGES, "other")}
    result = None
    for _ in range(repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        result = anonkit.anonymize(frame, **kwargs)
        wall = time.perf_counter() - t0
        cpus.append(time.process_time() - c0)
        walls.append(wall)
        for stage in STAGES:
            stages[stage].append(result.timing[stage])
        stages["other"].append(wall - sum(result.timing[s] for s in STAGES))
    assert result is not None
    out: dict[str, Any] = {
        "wall": statistics.median(walls) * 1000,
        "cpu": statistics.median(cpus) * 1000,
    }
    out.update({s: statistics.median(v) * 1000 for s, v in stages.items()})
    out["nodes"] = result.nodes_evaluated
    out["suppressed"] = result.suppressed
    out["levels"] = list(result.transformation.values())
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--cases", default="", help="comma-separated texts a case name contains")
    p.add_argument("--json", action="store_true", help="one JSON object per case")
    p.add_argument("--record", action="store_true", help="write the results to RESULTS.md")
    p.add_argument("--e2e", action="store_true", help="also the 995,346-row end-to-end cell")
    p.add_argument("--scale", type=int, default=1, help="Adult repeated N times in memory")
    p.add_argument(
        "--hierarchy-objects",
        action="store_true",
        help="pass Hierarchy objects read once, as ARX's harness passes its parsed "
        "hierarchies (default: the files' paths, read and hashed by every call)",
    )
    p.add_argument(
        "--kernels",
        choices=("auto", "compiled"),
        default="auto",
        help="auto: as a fresh process runs (numpy until enough work repays loading numba); "
        "compiled: load numba first, the steady state of a long-running process",
    )
    p.add_argument(
        "--warm-up-rounds",
        type=int,
        default=0,
        help="run every selected case this many times before timing any (as ARX's "
        "harness warms its JIT on every cell)",
    )
    args = p.parse_args(argv)
    if args.kernels == "compiled":
        import numba  # noqa: F401  (its presence switches the roll-ups to compiled kernels)
    command, info = common.command_line(), common.machine_info()
    frame = pl.read_csv(common.ADULT_CSV, separator=";", infer_schema=False)
    if args.scale > 1:
        frame = pl.concat([frame] * args.scale)
    columns = list(common.ADULT_COLUMNS)
    paths: dict[str, Any] = {c: common.adult_hierarchy_path(c) for c in columns}
    if args.hierarchy_objects:
        paths = {c: Hierarchy.from_csv(path, name=c) for c, path in paths.items()}
    wanted = [w.strip() for w in args.cases.split(",") if w.strip()]
    todo: list[tuple[str, Any, dict[str, Any]]] = [
        (name, frame, options)
        for name, options in cases(columns)
        if not wanted or any(w in name for w in wanted)
    ]
    with tempfile.TemporaryDirectory() as scratch:
        return _run(args, frame, columns, paths, todo, Path(scratch), command, info)


def _run(
    args: argparse.Namespace,
    frame: pl.DataFrame,
    columns: list[str],
    paths: dict[str, Any],
    todo: list[tuple[str, Any, dict[str, Any]]],
    scratch: Path,
    command: str,
    info: Any,
) -> int:
    """Time the cases of ``todo`` (and the end-to-end cell, written under ``scratch``)."""
    rows = []
    if args.e2e:
        big = write_adult_x33(scratch)
        todo.append((E2E_CASE, big, e2e_options(columns)))
    calls = [
        (
            name,
            data,
            {
                "quasi_identifiers": columns,
                "hierarchies": {c: paths[c] for c in columns},
                "others": "drop",
                "algorithm": "flash",
                **options,  # the end-to-end cell names its hierarchy files
            },
        )
        for name, data, options in todo
    ]
    if args.warm_up_rounds:
        w0 = time.perf_counter()
        for _ in range(args.warm_up_rounds):
            for _name, data, kwargs in calls:
                anonkit.anonymize(data, **kwargs)
        print(
            f"# warm-up: {args.warm_up_rounds} round(s) of {len(calls)} case(s) in "
            f"{time.perf_counter() - w0:.1f} s; compiled kernels loaded: "
            f"{'numba' in sys.modules}",
            file=sys.stderr,
            flush=True,
        )
    for name, data, kwargs in calls:
        m = time_calls(data, kwargs, args.repeats)
        if args.json:
            print(json.dumps({"case": name, **m}), flush=True)
            continue
        rows.append(
            f"| {name} | {m['wall']:.1f} | {m['cpu']:.1f} | {m['encode']:.1f} "
            f"| {m['search']:.1f} | {m['release']:.1f} | {m['other']:.1f} | {m['nodes']} "
            f"| {m['suppressed']} |"
        )
        print(rows[-1], flush=True)
    if args.json:
        return 0
    table = "\n".join(
        [
            "| case | wall ms | CPU ms | encode ms | search ms | release ms | other ms "
            "| nodes | suppressed |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            *rows,
        ]
    )
    print(table)
    if args.record:
        lines = common.section_preamble("## Whole anonymize() calls on Adult", command, info)
        lines += [
            "",
            f"Medians of {args.repeats} warm calls per case; kernels: {args.kernels}; "
            f"warm-up rounds over every case: {args.warm_up_rounds} (compiled kernels "
            f"loaded: {'numba' in sys.modules}); "
            f"hierarchies: {'objects' if args.hierarchy_objects else 'paths'}.",
            "",
            table,
            "",
        ]
        common.update_section("anonymize_adult", "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
