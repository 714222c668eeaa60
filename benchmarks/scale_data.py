"""The scale-out benchmark table: Adult resampled to millions of rows, made harder.

Plain resampling of Adult is too easy (10M resampled rows are 22-anonymous without any
generalization), so the table of issue 17 perturbs it: Adult's records are drawn with
replacement, ``age`` is jittered by up to ±5 years, and a skewed 5-digit ``zip`` is added
(a Zipf-like draw over 20,000 codes). Quasi-identifiers (8): age, education,
marital-status, native-country, race, sex, workclass, zip; ``occupation`` is sensitive and
``salary-class`` insensitive.

Run from the repository root to write a Parquet file (cached: an existing file with the
same row count and seed is reused)::

    PYTHONPATH=src .venv/bin/python benchmarks/scale_data.py --rows 10000000 \\
        --output /tmp/anonkit-scale/scale_10000000.parquet
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

#: The quasi-identifiers of the table.
QUASI_IDENTIFIERS = [
    "age",
    "education",
    "marital-status",
    "native-country",
    "race",
    "sex",
    "workclass",
    "zip",
]
SENSITIVE = "occupation"
INSENSITIVE = "salary-class"
#: Rows written per chunk (keeps generation memory flat).
CHUNK = 2_000_000


def hierarchies() -> dict[str, Any]:
    """Each quasi-identifier's hierarchy: Adult's files, intervals for the jittered age,
    masking for the zip code."""
    out: dict[str, Any] = {
        c: common.adult_hierarchy_path(c) for c in QUASI_IDENTIFIERS if c not in ("age", "zip")
    }
    out["age"] = {"type": "intervals", "widths": [5, 10, 20, 40, 80]}
    out["zip"] = {"type": "masking"}
    return out


def generate(rows: int, seed: int = 0) -> pl.DataFrame:
    """``rows`` records of the perturbed table (in memory; see :func:`write`)."""
    adult = pl.read_csv(common.ADULT_CSV, separator=";", infer_schema=False)
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, adult.height, rows)
    frame = adult.select([*QUASI_IDENTIFIERS[:-1], SENSITIVE, INSENSITIVE])[pick]
    jitter = rng.integers(-5, 6, rows)
    ages = np.clip(frame["age"].cast(pl.Int64).to_numpy() + jitter, 0, None)
    zips = np.minimum(rng.zipf(1.3, rows), 20_000) * 37 % 100_000
    return frame.with_columns(
        pl.Series("age", ages).cast(pl.String),
        pl.Series("zip", zips).cast(pl.String).str.zfill(5),
    ).select([*QUASI_IDENTIFIERS, SENSITIVE, INSENSITIVE])


def write(rows: int, output: Path, seed: int = 0) -> Path:
    """Write the table to ``output`` (Parquet) in chunks; reuse it if it is there."""
    if output.is_file() and pl.scan_parquet(output).select(pl.len()).collect().item() == rows:
        return output
    output.parent.mkdir(parents=True, exist_ok=True)
    parts = []
    for i, start in enumerate(range(0, rows, CHUNK)):
        part = output.with_name(f".{output.stem}.part{i}.parquet")
        generate(min(CHUNK, rows - start), seed + i).write_parquet(part)
        parts.append(part)
    tmp = output.with_name(f".{output.name}.tmp")
    pl.scan_parquet(parts).sink_parquet(tmp)
    tmp.replace(output)
    for part in parts:
        part.unlink()
    return output


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--output", type=Path, required=True)
    args = p.parse_args(argv)
    path = write(args.rows, args.output, args.seed)
    print(f"{path} ({path.stat().st_size / 2**20:.0f} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
