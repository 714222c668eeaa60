"""Response time of the ``anonkit app`` steps on Adult, and load + profile of 1M rows.

Times the functions each page calls, the median of ``--repeats`` runs after one warm-up:

* Adult (30,162 records): load (the read itself, and as the app does it: read and
  profiled once at start, then kept), propose roles (profile), leak check, the hierarchy
  previews, the run (Flash, k = 5, 5 % suppression), the alternatives, the explore tables
  and charts, the TOML;
* a ``--rows`` CSV resampled from Adult (``numpy.random.default_rng(--seed)``): load and
  profile (the Load and Roles pages), cold;
* with ``--browser N``: ``anonkit app`` in a subprocess and Debian's Chromium driven by
  Playwright, N walks through the pages (after one warm-up walk, each in a new session);
  each action timed from the click until its content shows and the server is idle
  (Shiny's ``shiny-busy`` class gone): what the user waits for, including the websocket
  round trips and the browser's rendering.

The issue's targets: every Adult step but the run within 0.3 s, 1M rows loaded and
profiled within 10 s. ``--record`` writes the table into RESULTS.md.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/app_steps.py --browser 3
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

from anonkit.app import export, preview, results, workflow  # noqa: E402

SECTION = "app_steps"
TITLE = "## anonkit app: step response times"


def _time(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    value = fn()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return common.median(times), value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--record", action="store_true", help="write into RESULTS.md")
    parser.add_argument(
        "--browser", type=int, default=0, metavar="N",
        help="also time N walks through the pages in Chromium (click to answer)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    r = args.repeats
    rows: list[tuple[str, float, str]] = []

    cold_load = workflow.load_adult.__wrapped__  # the read itself, not the kept copy
    t, loaded = _time(cold_load, r)
    rows.append(("Adult: load (read)", t, ""))

    def cold_propose() -> Any:
        workflow._PROPOSED.clear()
        return workflow.propose(loaded)

    t2, starter = _time(cold_propose, r)
    rows.append(("Adult: propose roles (profile)", t2, ""))
    rows.append(("Adult: load + profile, cold", t + t2, ""))
    workflow.warm_up()  # what the app does at start
    t, _ = _time(lambda: workflow.propose(workflow.load_adult()), r)
    rows.append(("Adult: load + profile in the app (read at start, kept)", t, "0.3 s"))
    roles = {p.column: p.role for p in starter.proposals}
    t, _ = _time(lambda: workflow.role_leaks(loaded.frame, roles), r)
    rows.append(("Adult: leak check", t, "0.3 s"))
    specs = workflow.default_hierarchies(loaded, starter)
    by = workflow.roles_by_kind(roles)
    qi = by["quasi_identifier"]
    t, _ = _time(lambda: [preview.preview_hierarchy(loaded.frame, c, specs[c]) for c in qi], r)
    rows.append((f"Adult: preview all {len(qi)} hierarchies (one per page view)", t, ""))
    t, _ = _time(lambda: preview.preview_hierarchy(loaded.frame, "age", specs["age"]), r)
    rows.append(("Adult: preview one hierarchy (age)", t, "0.3 s"))
    keywords = results.anonymizer_keywords(
        by, specs, k=5, models=[], suppression_limit=0.05, algorithm="flash", metric="loss"
    )
    t, outcome = _time(lambda: results.run(results.RunRequest(loaded.frame, keywords)), r)
    rows.append(("Adult: run (Flash, k = 5, 5 %)", t, "-"))
    t, _ = _time(lambda: results.alternatives(outcome.estimator), r)
    rows.append(("Adult: alternatives (radius 2)", t, "0.3 s"))

    def explore() -> None:
        results.loss_rows(outcome.result)
        results.risk_rows(outcome.result)
        results.class_size_svg(outcome.result.classes.histogram)
        for c in qi:
            results.distribution_svgs(loaded.frame, outcome.result.release, c)

    t, _ = _time(explore, r)
    rows.append(("Adult: explore tables and charts", t, "0.3 s"))
    t, _ = _time(
        lambda: export.config_toml(
            input=loaded.path,
            read=loaded.read,
            roles=by,
            hierarchies=specs,
            k=5,
            suppression_limit=0.05,
            algorithm="flash",
            metric="loss",
        ),  # fmt: skip
        r,
    )
    rows.append(("Adult: TOML", t, "0.3 s"))

    rng = np.random.default_rng(args.seed)
    big = loaded.frame[rng.integers(0, loaded.frame.height, args.rows)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.csv"
        big.write_csv(path, separator=";")
        t, big_loaded = _time(lambda: workflow.load_table(path), 1)
        rows.append((f"{args.rows:,} rows: load", t, ""))
        t2, _ = _time(lambda: (workflow._PROPOSED.clear(), workflow.propose(big_loaded)), 1)
        rows.append((f"{args.rows:,} rows: propose roles (profile)", t2, ""))
        rows.append((f"{args.rows:,} rows: load + profile", t + t2, "10 s"))

    table = common.markdown_table(
        ["step", "median", "target"],
        [(name, common.fmt_seconds(sec), target) for name, sec, target in rows],
        "lrr",
    )
    if args.browser:
        browser_rows = _browser_steps(args.browser)
        table += "\n\nIn Chromium, from the click until the content shows, and until the server is "
        table += "idle (the hidden pages' follow-up round trips included):\n\n"
        table += common.markdown_table(
            ["action (Adult)", "shown", "idle", "target"],
            [(n, common.fmt_seconds(a), common.fmt_seconds(b), t) for n, a, b, t in browser_rows],
            "lrrr",
        )
    print(table)
    if args.record:
        lines = common.section_preamble(TITLE, common.command_line(argv))
        common.update_section(SECTION, "\n".join([*lines, "", table, ""]))


# ------------------------------------------------------------------------ in the browser
_BUSY = "() => !document.documentElement.classList.contains('shiny-busy')"


def _browser_steps(repeats: int) -> list[tuple[str, float, float, str]]:
    """Click-to-answer times in Chromium: each action, until its content shows and the
    server is idle again (Shiny's ``shiny-busy`` class gone), median over ``repeats``
    walks through the pages, each in a new session of one ``anonkit app`` server."""
    import shutil
    import socket
    import subprocess

    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=60_000)  # a shared machine can be slow

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    proc = subprocess.Popen(
        [sys.executable, "-m", "anonkit", "app", "--no-browser", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    times: dict[str, list[tuple[float, float]]] = {}
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=chromium, headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                      "--disable-component-update", "--disable-sync"],
            )  # fmt: skip
            for _ in range(repeats + 1):  # the first walk warms up
                walk = _walk(browser, f"http://127.0.0.1:{port}/", expect)
                for name, shown, idle in walk:
                    times.setdefault(name, []).append((shown, idle))
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return [
        (
            name,
            common.median([a for a, _ in sec[1:]]),
            common.median([b for _, b in sec[1:]]),
            "-" if "run" in name or "the app" in name else "0.3 s",
        )
        for name, sec in times.items()
    ]


def _walk(browser: Any, url: str, expect: Any) -> list[tuple[str, float, float]]:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.set_default_timeout(60_000)
    t0 = time.perf_counter()
    page.goto(url)
    expect(page.get_by_role("button", name="Load", exact=True)).to_be_visible()
    page.wait_for_function("() => window.Shiny && Shiny.shinyapp && Shiny.shinyapp.isConnected()")
    shown = time.perf_counter() - t0
    page.wait_for_function(_BUSY)
    out = [("open the app (a new session)", shown, time.perf_counter() - t0)]

    def timed(name: str, action: Callable[[], None], done: Callable[[], None]) -> None:
        t0 = time.perf_counter()
        action()
        done()
        shown = time.perf_counter() - t0
        page.wait_for_function(_BUSY)
        out.append((name, shown, time.perf_counter() - t0))

    def shows(selector: str, text: str | None = None) -> Callable[[], None]:
        def check() -> None:
            found = page.locator(selector)
            if text is None:
                expect(found).to_be_visible()
            else:
                expect(found).to_contain_text(text)

        return check

    load = page.get_by_role("button", name="Load", exact=True)
    timed("load Adult (preview, roles, leaks)", load.click, shows("#load-summary", "30,162"))
    nxt = page.get_by_role("button", name="Next: roles")
    timed("open Roles", nxt.click, shows("#roles"))
    role = page.locator("#role-row-8 select")
    timed(
        "change a role (leak check)", lambda: role.select_option("identifying"), shows("#no-leaks")
    )
    nxt = page.get_by_role("button", name="Next: hierarchies")
    timed("open Hierarchies", nxt.click, shows("#hier-summary"))
    column = page.locator("#h_column")
    timed(
        "preview another column",
        lambda: column.select_option("age"),
        shows("#hier_preview", "age: file"),
    )
    kind = page.locator("#h_type")

    def drafted() -> None:
        expect(page.locator("#h_params")).to_have_value("widths = [5, 10, 20]")
        expect(page.locator("#hier_preview #hier-draft")).to_be_visible()

    timed("preview a builder before applying", lambda: kind.select_option("intervals"), drafted)
    timed("apply it", page.locator("#h_apply").click, shows("#hier-summary", "intervals"))
    tab = page.get_by_role("tab", name="Privacy")
    timed("open Privacy", tab.click, shows("#k"))
    k = page.locator("#k")
    timed("change k", lambda: (k.fill("10"), k.press("Tab")), lambda: None)
    page.get_by_role("tab", name="Run").click()
    timed("run (Flash, k = 10, 5 %)", page.locator("#run").click, shows("#summary", "yes"))
    tab = page.get_by_role("tab", name="Explore")
    timed("open Explore", tab.click, shows("#alts"))
    alt = page.locator("#alt")
    timed("inspect an alternative", lambda: alt.select_option("1"),
          shows("#alt_detail", "An alternative"))  # fmt: skip
    dist = page.locator("#dist_column")
    timed("another distribution", lambda: dist.select_option("education"),
          shows("#distributions", "education"))  # fmt: skip
    tab = page.get_by_role("tab", name="Export")
    timed("open Export", tab.click, shows("#toml-preview"))
    page.close()
    return out


if __name__ == "__main__":
    main()
