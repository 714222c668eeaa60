"""Every anonkit algorithm on Adult, side by side: information loss and time (issue 20).

Adult (30,162 records) with its 9 columns as quasi-identifiers and the ARX hierarchies.
For each ``k`` in ``--k`` every algorithm runs once through its estimator (the whole fit:
encoding, search, release and the independent verification of the release), with no
suppression allowed (``suppression_limit=0``, so the full-domain searches and the
local recodings are compared on releases that keep every record):

* full-domain searches (metric ``loss``): every search of the registry (flash,
  exhaustive, samarati, datafly, incognito, the heuristics, ``auto``) and allmin (every
  minimal generalization, the best by the metric), each with its default settings;
* local recodings: mondrian, greedy_merge (``nllm``), hilbert, banga;
* k_optimize (discernibility; 9 columns of Adult are far beyond what it proves optimal in
  a minute, so it runs with ``--kopt-seconds`` and reports the best found).

Microaggregation is left out: it needs numeric quasi-identifiers and Adult's are
categorical. Every release is measured the same way, by :func:`anonkit.evaluate.evaluate`
on (original, release): ``loss`` (ARX's generalization loss, 0..1), ``ncp`` and the
discernibility metric.

``--kopt-scaling`` then measures how large a table k-OPTIMIZE solves (proves optimal) within
``--kopt-seconds``, on the first rows of Adult with the interval-hierarchy columns age,
sex and race, next to the full-domain optimum of the same metric (exhaustive search).

Prints the tables; ``--record`` writes them into ``benchmarks/RESULTS.md`` (section
``algorithms_adult``). Run from the repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/algorithms_adult.py [--record]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

from anonkit._validation import Options  # noqa: E402
from anonkit.algorithms.lattice import LATTICE_ALGORITHMS  # noqa: E402
from anonkit.algorithms.lattice.allmin import AllMin  # noqa: E402
from anonkit.estimators import FullDomain, GreedyMerge, Mondrian, Privacy  # noqa: E402
from anonkit.estimators.banga import BangA  # noqa: E402
from anonkit.estimators.hilbert import Hilbert  # noqa: E402
from anonkit.estimators.koptimize import KOptimize  # noqa: E402
from anonkit.evaluate import evaluate  # noqa: E402
from anonkit.models import KAnonymity  # noqa: E402

SECTION = "algorithms_adult"
TITLE = "## Algorithms side by side on Adult (issue 20)"
DEFAULT_K = (2, 5, 10, 50, 100)
LOCAL = ("mondrian", "greedy_merge", "hilbert", "banga", "k_optimize")
SCALING_QI = ("age", "sex", "race")
SCALING_ROWS = (250, 500, 1000, 2000, 4000, 8000, 16000, 30162)
SCALING_K = (10, 100)

# allMin until the registry lists it (the estimator reads the registry when it runs)
LATTICE_ALGORITHMS.setdefault("allmin", AllMin)  # type: ignore[arg-type]
#: Every registered full-domain search (the heuristics and ``auto`` included).
FULL_DOMAIN = tuple(LATTICE_ALGORITHMS)


class _FullDomain(FullDomain):
    """FullDomain whose ``search`` may also be ``allmin`` (until it is registered)."""

    _parameter_constraints = {
        **FullDomain._parameter_constraints,
        "search": Options(tuple(LATTICE_ALGORITHMS)),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--k", type=int, nargs="+", default=list(DEFAULT_K))
    p.add_argument("--algorithms", nargs="+", default=[*FULL_DOMAIN, *LOCAL])
    p.add_argument("--kopt-seconds", type=float, default=60.0)
    p.add_argument("--kopt-scaling", action="store_true", help="also the k-OPTIMIZE sizes")
    p.add_argument("--no-main", action="store_true", help="skip the side-by-side table")
    p.add_argument("--record", action="store_true", help="write the section of RESULTS.md")
    p.add_argument("--output", default=str(common.RESULTS_PATH))
    return p.parse_args(argv)


def estimator(name: str, k: int, kopt_seconds: float) -> Any:
    privacy = Privacy(KAnonymity(k), suppression_limit=0.0)
    if name in FULL_DOMAIN:
        return _FullDomain(name, "loss", privacy=privacy)
    if name == "mondrian":
        return Mondrian(privacy=privacy)
    if name == "greedy_merge":
        return GreedyMerge(privacy=privacy)
    if name == "hilbert":
        return Hilbert(privacy=privacy)
    if name == "banga":
        return BangA(privacy=privacy)
    if name == "k_optimize":
        return KOptimize(time_limit=kopt_seconds, privacy=privacy)
    raise SystemExit(f"unknown algorithm {name!r}")


def measure(frame: pl.DataFrame, hierarchies: dict[str, Path], name: str, k: int, secs: float):
    qi = list(frame.columns)
    est = estimator(name, k, secs)
    t0 = time.perf_counter()
    est.fit(frame, quasi_identifiers=qi, hierarchies=hierarchies)
    seconds = time.perf_counter() - t0
    res = est.result_
    ev = evaluate(frame, res.release, quasi_identifiers=qi, hierarchies=hierarchies, k=k)
    loss = {e["name"]: e.get("value") for e in ev.to_dict()["loss"]}
    note = ""
    if name == "k_optimize":
        d = res.details["k_optimize"]
        note = "optimal" if d["optimal"] else f"best after {secs:g} s ({d['nodes']:,} nodes)"
    elif name == "allmin":
        note = f"{len(res.minimal_transformations)} minimal"
    return {
        "algorithm": name,
        "k": k,
        "seconds": seconds,
        "loss": loss.get("loss"),
        "ncp": loss.get("ncp"),
        "dm": loss.get("discernibility"),
        "classes": res.classes.n_classes,
        "verified": res.verified,
        "note": note,
    }


def scaling(frame: pl.DataFrame, hierarchies: dict[str, Path], secs: float) -> list[dict]:
    out = []
    qi = list(SCALING_QI)
    hs = {c: hierarchies[c] for c in qi}
    for k in SCALING_K:
        for rows in SCALING_ROWS:
            part = frame.head(rows).select(qi)
            privacy = Privacy(KAnonymity(k), suppression_limit=0.0)
            t0 = time.perf_counter()
            kopt = KOptimize(time_limit=secs, privacy=privacy).fit(
                part, quasi_identifiers=qi, hierarchies=hs
            )
            seconds = time.perf_counter() - t0
            full = FullDomain("exhaustive", "discernibility", privacy=privacy).fit(
                part, quasi_identifiers=qi, hierarchies=hs
            )
            d = kopt.result_.details["k_optimize"]
            r = {
                "k": k,
                "rows": part.height,
                "distinct": d["distinct_rows"],
                "seconds": seconds,
                "optimal": d["optimal"],
                "nodes": d["nodes"],
                "kopt_dm": kopt.result_.metrics["discernibility"],
                "full_dm": full.result_.metrics["discernibility"],
            }
            out.append(r)
            print(r, file=sys.stderr, flush=True)
            if not d["optimal"]:
                break
    return out


def _num(x: Any, digits: int = 4) -> str:
    if x is None:
        return "—"
    if isinstance(x, float) and abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}f}" if isinstance(x, float) else str(x)


def render(
    command: str, info: dict[str, str], n: int, rows: list[dict], scale: list[dict], secs: float
) -> str:
    lines = common.section_preamble(TITLE, command, info)
    lines += [
        "",
        f"Setup: Adult, {n:,} records, 9 quasi-identifiers with the ARX hierarchies, "
        "k-anonymity, no suppression allowed. Each cell is one `fit` (encoding, search, "
        "release, verification) timed with `time.perf_counter` on a noisy 2-core machine: "
        "compare times within a column as ratios. Loss figures are measured on the "
        "release by `anonkit.evaluate.evaluate` for every algorithm alike.",
        "",
    ]
    if rows:
        ks = sorted({r["k"] for r in rows})
        names = list(dict.fromkeys(r["algorithm"] for r in rows))
        by = {(r["algorithm"], r["k"]): r for r in rows}
        header = ["algorithm", *[f"k={k} loss / time" for k in ks]]
        table = []
        for name in names:
            cells = []
            for k in ks:
                r = by.get((name, k))
                cells.append(
                    "—" if r is None else f"{_num(r['loss'])} / {common.fmt_seconds(r['seconds'])}"
                )
            table.append([name, *cells])
        lines += ["Loss (ARX generalization loss, 0 = original, 1 = all `*`) / time:", ""]
        lines += [common.markdown_table(header, table), ""]
        detail = [
            [
                r["algorithm"],
                r["k"],
                _num(r["loss"]),
                _num(r["ncp"]),
                _num(r["dm"]),
                f"{r['classes']:,}",
                common.fmt_seconds(r["seconds"]),
                "yes" if r["verified"] else "**no**",
                r["note"] or "",
            ]
            for r in rows
        ]
        lines += [
            "Every figure:",
            "",
            common.markdown_table(
                [
                    "algorithm",
                    "k",
                    "loss",
                    "ncp",
                    "discernibility",
                    "classes",
                    "time",
                    "verified",
                    "note",
                ],
                detail,
            ),
            "",
        ]
    if scale:
        lines += [
            f"k-OPTIMIZE: how large a table it proves optimal within {secs:g} s (first rows "
            f"of Adult, columns {', '.join(SCALING_QI)}, no suppression), against the "
            "full-domain optimum of the same metric (exhaustive search over the ARX "
            "hierarchies, which are interval hierarchies for these columns):",
            "",
            common.markdown_table(
                [
                    "k",
                    "rows",
                    "distinct rows",
                    "time",
                    "proved optimal",
                    "nodes",
                    "k-OPTIMIZE DM",
                    "full-domain DM",
                ],
                [
                    [
                        r["k"],
                        f"{r['rows']:,}",
                        f"{r['distinct']:,}",
                        common.fmt_seconds(r["seconds"]),
                        "yes" if r["optimal"] else "no (time limit)",
                        f"{r['nodes']:,}",
                        f"{r['kopt_dm']:,.0f}",
                        f"{r['full_dm']:,.0f}",
                    ]
                    for r in scale
                ],
            ),
            "",
        ]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command = common.command_line()
    info = common.machine_info()
    frame = pl.read_csv(common.ADULT_CSV, separator=";", infer_schema=False)
    hierarchies = {c: common.adult_hierarchy_path(c) for c in frame.columns}
    rows: list[dict] = []
    if not args.no_main:
        for k in args.k:
            for name in args.algorithms:
                r = measure(frame, hierarchies, name, k, args.kopt_seconds)
                rows.append(r)
                print(r, file=sys.stderr, flush=True)
    scale = scaling(frame, hierarchies, args.kopt_seconds) if args.kopt_scaling else []
    body = render(command, info, frame.height, rows, scale, args.kopt_seconds)
    print(body)
    if args.record:
        path = common.update_section(SECTION, body, args.output)
        print(f"wrote section '{SECTION}' of {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
