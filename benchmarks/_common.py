"""Helpers shared by the benchmark scripts.

* :func:`machine_info` / :func:`machine_markdown` describe where a benchmark ran.
* :func:`update_section` rewrites one marked section of ``RESULTS.md`` atomically, so each
  script owns its own section and never touches the others.
* :func:`command_line` renders the command that was run, to paste back into a shell.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import importlib.metadata
import os
import platform
import shlex
import statistics
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from anonkit._atomic import atomic_write_text, splice_marked_block
from anonkit.datasets import ADULT_COLUMNS as ADULT_COLUMNS
from anonkit.datasets import adult_path

#: Root of the repository (the parent of ``benchmarks/``).
REPO_ROOT = Path(__file__).resolve().parent.parent
#: Default results file.
RESULTS_PATH = REPO_ROOT / "benchmarks" / "RESULTS.md"
#: Adult data set and hierarchies used by several benchmarks: the shared reference copy
#: (``$ANONKIT_SHARED_DATA/adult``, default ``../shared/data/adult`` next to the repository)
#: when present, else the identical copy bundled with the package.
SHARED_DATA = Path(os.environ.get("ANONKIT_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))
ADULT_DIR = (
    SHARED_DATA / "adult" if (SHARED_DATA / "adult" / "adult.csv").is_file() else adult_path()
)
ADULT_CSV = ADULT_DIR / "adult.csv"

_TITLE = "# anonkit benchmark results\n"
_INTRO = (
    "Each section below is written by one script in `benchmarks/` (see "
    "`benchmarks/README.md`); re-running a script rewrites only its own section.\n"
)


def adult_hierarchy_path(column: str) -> Path:
    return ADULT_DIR / f"adult_hierarchy_{column}.csv"


def cpu_model() -> str:
    """CPU model name from ``/proc/cpuinfo`` (Linux), else ``platform.processor()``."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "Hardware", "cpu model"):
                    if value.strip():
                        return value.strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(distribution: str) -> str:
    """The installed version, read from the package's metadata: importing the package
    could change what is measured (numba switches anonkit's roll-ups to compiled
    kernels, see anonkit.core.grouping.compiled_ready)."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def machine_info() -> dict[str, str]:
    """Platform, CPU, core count and the versions that matter for timings."""
    return {
        "platform": platform.platform(),
        "cpu": cpu_model(),
        "cpu_count": str(os.cpu_count()),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "numpy": _version("numpy"),
        "polars": _version("polars"),
        "numba": _version("numba"),
        "load": load_average(),
    }


def load_average() -> str:
    """1/5/15-minute load averages (other processes skew timings on a small machine)."""
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except (AttributeError, OSError):
        return "unknown"


def machine_markdown(info: dict[str, str] | None = None) -> str:
    """Machine info as a Markdown bullet list."""
    info = info or machine_info()
    return "\n".join(
        [
            f"- Platform: `{info['platform']}`",
            f"- CPU: {info['cpu']} (`os.cpu_count()` = {info['cpu_count']})",
            f"- Python {info['python']}, numpy {info['numpy']}, polars {info['polars']}, "
            f"numba {info['numba']}",
            f"- Load average when the run started (1 / 5 / 15 min): {info.get('load', 'unknown')}",
        ]
    )


def section_preamble(title: str, command: str, info: dict[str, str] | None = None) -> list[str]:
    """The opening lines every recorded section shares: title, command, date, machine."""
    return [
        title,
        "",
        f"Command: `{command}`",
        "",
        f"Date: {today()}",
        "",
        "Machine:",
        "",
        machine_markdown(info),
    ]


def today() -> str:
    """Current date and time (UTC), to the minute."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command that ran this process, relative to the repository root when possible.

    ``PYTHONPATH`` is shown when it is set, since the scripts import ``anonkit`` from
    ``src/`` without installing it.
    """
    argv = list(sys.argv if argv is None else argv)

    def rel(p: str) -> str:
        try:
            return str(Path(p).resolve().relative_to(REPO_ROOT))
        except (ValueError, OSError):
            return p

    exe = sys.executable
    try:
        # Keep the venv's interpreter path (do not resolve the symlink to the base Python).
        exe = str(Path(exe).absolute().relative_to(REPO_ROOT))
    except ValueError:
        pass
    parts = [exe, rel(argv[0]) if argv else "", *argv[1:]]
    cmd = shlex.join(parts)
    pythonpath = os.environ.get("PYTHONPATH")
    if pythonpath:
        shown = os.pathsep.join(rel(p) for p in pythonpath.split(os.pathsep))
        cmd = f"PYTHONPATH={shlex.quote(shown)} {cmd}"
    return cmd


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def fmt_seconds(seconds: float) -> str:
    """Human-friendly duration: ms below one second, else seconds."""
    if seconds < 1.0:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.2f} s"


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Serialize read-modify-write of ``path`` between benchmark processes (POSIX only)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - non-POSIX
        yield
        return
    # Lock the directory itself so no lock file is left behind.
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def splice_section(text: str, name: str, body: str) -> str:
    """Return ``text`` with the section ``name`` replaced by ``body`` (appended if absent)."""
    start, end = markers(name)
    return splice_marked_block(text, start, end, body, title=f"{_TITLE}\n{_INTRO}")


def update_section(name: str, body: str, path: str | os.PathLike[str] = RESULTS_PATH) -> Path:
    """Rewrite only the ``<!-- name:start -->`` .. ``<!-- name:end -->`` part of ``path``.

    The file is created (with a title) if missing; the write is atomic (a temporary file
    in the same directory replaces the original), so readers never see a half-written
    file, and a lock keeps two benchmark processes from losing each other's section.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with _locked(target):
        try:
            text = target.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = ""
        atomic_write_text(target, splice_section(text, name, body))
    return target


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]], align: str = "") -> str:
    """A GitHub Markdown table; ``align`` holds one of ``l``/``r`` per column (default l)."""
    align = align.ljust(len(header), "l")
    sep = ["---:" if a == "r" else ":---" for a in align]
    lines = ["| " + " | ".join(str(h) for h in header) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
