"""A real Spark standalone cluster on this machine: anonymize through ``spark-submit``.

Starts a standalone master and two workers on loopback from the jars pyspark ships
(``spark-class org.apache.spark.deploy.master.Master`` / ``...worker.Worker``), submits
:mod:`spark_cluster_job` with ``spark-submit --master spark://127.0.0.1:PORT`` on the
1M-row table of :mod:`scale_data` (Flash with k = 10 and 4 % suppression, then Mondrian
with k = 10 in blocks of at most ``--max-block-records``), and stops the cluster.

Recorded: the cluster's start-up (until both workers registered) and the application's
Spark session start-up, both excluded from the anonymization times; each algorithm's
wall time as the job measured it; the CPU time (user + sys) of every process of the run
(master, workers, executors, driver; reaped children of this process); and, for the
issue's target, single-machine Mondrian's NCP on the same table (in memory, this
process) against the NCP of the release Spark wrote.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/spark_cluster.py --rows 1000000
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _common as common  # noqa: E402
import scale_data  # noqa: E402

SECTION = "spark_cluster"
TITLE = "## Spark standalone cluster (master + 2 workers): anonymize through spark-submit"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--suppression", type=float, default=0.04)
    p.add_argument("--algorithms", default="flash,mondrian")
    p.add_argument("--max-block-records", type=int, default=250_000)
    p.add_argument("--worker-cores", type=int, default=1)
    p.add_argument("--worker-memory", default="3g", help="memory each worker offers")
    p.add_argument("--executor-memory", default="2g")
    p.add_argument("--driver-memory", default="2g")
    p.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "anonkit-scale")
    p.add_argument("--skip-single", action="store_true", help="no single-machine Mondrian")
    p.add_argument("--output", type=Path, default=common.RESULTS_PATH)
    return p.parse_args(argv)


def gib(n: int) -> str:
    return f"{n / 2**30:.2f} GiB"


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def alive_workers(ui_port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=5) as r:
            return int(json.load(r).get("aliveworkers", 0))
    except OSError:
        return 0


@contextlib.contextmanager
def standalone_cluster(
    workers: int, cores: int, memory: str, logs: Path, timeout: float = 600
) -> Iterator[tuple[str, float]]:
    """A standalone master and ``workers`` workers on loopback; yields the master URL and
    the seconds until every worker registered. Every process is stopped on exit."""
    home = spark_home()
    spark_class = str(home / "bin" / "spark-class")
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1"}
    port, ui = free_port(), free_port()
    url = f"spark://127.0.0.1:{port}"
    procs: list[subprocess.Popen[bytes]] = []
    t = time.perf_counter()
    try:
        master = [spark_class, "org.apache.spark.deploy.master.Master"]
        master += ["--host", "127.0.0.1", "--port", str(port), "--webui-port", str(ui)]
        with (logs / "master.log").open("wb") as log:
            procs.append(subprocess.Popen(master, env=env, stdout=log, stderr=log))
        for i in range(workers):
            worker = [spark_class, "org.apache.spark.deploy.worker.Worker", url]
            worker += ["--host", "127.0.0.1", "--cores", str(cores), "--memory", memory]
            worker += ["--webui-port", str(free_port()), "--work-dir", str(logs / f"work{i}")]
            with (logs / f"worker{i}.log").open("wb") as log:
                procs.append(subprocess.Popen(worker, env=env, stdout=log, stderr=log))
        while alive_workers(ui) < workers:
            if time.perf_counter() - t > timeout or any(p.poll() is not None for p in procs):
                raise RuntimeError(f"the cluster did not start; see the logs in {logs}")
            time.sleep(0.5)
        yield url, time.perf_counter() - t
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in reversed(procs):
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


class PeakMemory:
    """Peak resident memory of this process's descendants, sampled from ``/proc`` every
    half second, by role: the application's driver (its JVM and Python), the executors
    (JVMs), the executors' Python workers, the master and the workers."""

    def __init__(self) -> None:
        self.peaks: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def _role(cmdline: str) -> str:
        if "deploy.master.Master" in cmdline:
            return "master"
        if "deploy.worker.Worker" in cmdline:
            return "workers"
        if "CoarseGrainedExecutorBackend" in cmdline:
            return "executor JVMs"
        if "SparkSubmit" in cmdline:
            return "driver JVM"
        if "spark_cluster_job.py" in cmdline:
            return "driver Python"
        if "pyspark.daemon" in cmdline or "pyspark/daemon" in cmdline:
            return "executors' Python workers"
        return "other"

    def _sample(self) -> None:
        by_role: dict[str, int] = {}
        stack = [os.getpid()]
        while stack:
            pid = stack.pop()
            try:
                # a JVM starts processes from any of its threads: read every task's children
                for task in Path(f"/proc/{pid}/task").iterdir():
                    stack.extend(int(k) for k in (task / "children").read_text().split())
                if pid == os.getpid():
                    continue
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                status = Path(f"/proc/{pid}/status").read_text()
            except (OSError, ValueError):
                continue
            rss = next((int(x.split()[1]) for x in status.splitlines() if x.startswith("VmRSS")), 0)
            role = self._role(cmd)
            by_role[role] = by_role.get(role, 0) + rss * 1024
        for role, rss in by_role.items():
            self.peaks[role] = max(self.peaks.get(role, 0), rss)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            time.sleep(0.5)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def submit(args: argparse.Namespace, url: str, data: Path, out: Path) -> list[dict[str, Any]]:
    """Run :mod:`spark_cluster_job` with ``spark-submit``; its JSON lines."""
    home = spark_home()
    src = str(HERE.parent / "src")
    command = [
        str(home / "bin" / "spark-submit"),
        "--master",
        url,
        "--driver-memory",
        args.driver_memory,
        "--conf",
        f"spark.executor.memory={args.executor_memory}",
        "--conf",
        "spark.sql.shuffle.partitions=8",
        "--conf",
        f"spark.pyspark.python={sys.executable}",
        "--conf",
        f"spark.executorEnv.PYTHONPATH={src}",
        "--conf",
        "spark.ui.showConsoleProgress=false",
        str(HERE / "spark_cluster_job.py"),
        str(data),
        str(out),
        "--algorithms",
        args.algorithms,
        "--k",
        str(args.k),
        "--suppression",
        str(args.suppression),
        "--max-block-records",
        str(args.max_block_records),
    ]
    env = {
        **os.environ,
        "SPARK_HOME": str(home),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "PYSPARK_PYTHON": sys.executable,
        "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]),
    }
    print("$ " + " ".join(command), file=sys.stderr, flush=True)
    run = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.stderr.write(run.stderr[-5000:])
        raise RuntimeError(f"spark-submit failed with status {run.returncode}")
    return [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]


def single_machine_ncp(path: Path, k: int) -> tuple[float, float]:
    """Single-machine Mondrian on the table (in memory): its NCP and seconds."""
    from anonkit import anonymize
    from anonkit.core.resolve import resolve_hierarchy
    from anonkit.metrics.tallied import tallied_column, tallied_losses

    qi = scale_data.QUASI_IDENTIFIERS
    frame = pl.read_parquet(path).select(qi)
    hs = {c: resolve_hierarchy(c, s, frame[c]) for c, s in scale_data.hierarchies().items()}
    t = time.perf_counter()
    release = anonymize(frame, quasi_identifiers=qi, hierarchies=hs, k=k, algorithm="mondrian")
    seconds = time.perf_counter() - t
    columns = []
    for c in qi:
        o = frame.group_by(c).len()
        r = release.release.group_by(c).len()
        columns.append(
            tallied_column(c, o[c], o["len"].to_numpy(), r[c], r["len"].to_numpy(), hierarchy=hs[c])
        )
    sizes = release.release.group_by(qi).len()["len"].to_numpy()
    return tallied_losses(columns, sizes, n_suppressed=0)["ncp"], seconds


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command = common.command_line()
    info = common.machine_info()
    data = scale_data.write(args.rows, args.data_dir / f"scale_{args.rows}.parquet")
    work = Path(tempfile.mkdtemp(prefix="anonkit-cluster-"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    try:
        with (
            PeakMemory() as memory,
            standalone_cluster(2, args.worker_cores, args.worker_memory, work) as (url, up),
        ):
            print(f"cluster {url} up in {up:.1f} s", file=sys.stderr, flush=True)
            t_submit = time.perf_counter()
            lines = submit(args, url, data, work / "out")
            submit_wall = time.perf_counter() - t_submit
            written = {
                p.name: sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
                for p in (work / "out").iterdir()
            }
            for p in sorted((work / "out").rglob("*")):
                print(f"  {p.relative_to(work)} {p.stat().st_size:,}", file=sys.stderr)
    finally:
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter() - t
        shutil.rmtree(work, ignore_errors=True)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    startup = lines[0]
    runs = [line for line in lines[1:] if "algorithm" in line]
    single = None if args.skip_single else single_machine_ncp(data, args.k)

    rows = [
        ["cluster start-up (master + 2 workers registered; excluded)", common.fmt_seconds(up)],
        [
            "Spark session start-up in the application (excluded)",
            common.fmt_seconds(startup["startup"]),
        ],
    ]
    notes = []
    for r in runs:
        extra = (
            f"transformation {r['transformation']}, {r['suppressed']:,} suppressed"
            if r["algorithm"] != "mondrian"
            else f"{r['mondrian']['blocks']} blocks (largest {r['mondrian']['largest_block']:,} "
            f"records), {r['classes']:,} classes, NCP {r['ncp']:.4f}"
        )
        rows.append(
            [
                f"{r['algorithm']}: anonymize -> Parquet, verified (wall)",
                common.fmt_seconds(r["seconds"]),
            ]
        )
        notes.append(
            f"- {r['algorithm']}: verified {r['verified']}, smallest class {r['min_class']}, "
            f"{extra}; written {written.get(r['algorithm'] + '.parquet', 0) / 2**10:,.0f} KiB"
        )
    rows += [
        ["spark-submit wall (JVM, session, all runs)", common.fmt_seconds(submit_wall)],
        ["whole run wall (cluster up to down)", common.fmt_seconds(wall)],
        ["CPU of every process of the run (user + sys)", common.fmt_seconds(cpu)],
    ]
    if single is not None:
        mondrian = next((r for r in runs if r["algorithm"] == "mondrian"), None)
        ratio = (
            ""
            if mondrian is None
            else f"; Spark / single machine {mondrian['ncp'] / single[0]:.3f}"
        )
        notes.append(
            f"- single-machine Mondrian (this process, in memory): NCP {single[0]:.4f} in "
            f"{single[1]:.1f} s{ratio} (target: within 10 %)"
        )
    peaks = ", ".join(f"{role} {gib(rss)}" for role, rss in sorted(memory.peaks.items()))
    notes.append(f"- peak resident memory, summed over the processes of each role: {peaks}")
    notes.append(
        f"- {args.rows:,} records ({data.name}), k = {args.k}, Flash suppression limit "
        f"{args.suppression:.0%}; 2 workers x {args.worker_cores} core(s), {args.worker_memory} "
        f"each; executor memory {args.executor_memory}, driver memory {args.driver_memory}; "
        f"max_block_records {args.max_block_records:,}; master `{startup['master']}`."
    )
    table = common.markdown_table(["step", "time"], rows, "lr")
    body = "\n".join([*common.section_preamble(TITLE, command, info), "", table, "", *notes])
    print(body)
    section = SECTION if args.rows == 1_000_000 else f"{SECTION}_{args.rows}"
    common.update_section(section, body, args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
