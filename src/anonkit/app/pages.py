"""The layout of ``anonkit app``: one page per step, with plain-language help.

Only the static inputs and the places of the outputs; the outputs are rendered by the
step modules of :mod:`anonkit.app.steps`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from shiny import ui

from anonkit.api import takes_keyword
from anonkit.app import workflow
from anonkit.core.hierarchy_builders import BUILDERS
from anonkit.estimators.given import OWN_METRICS
from anonkit.metrics.generalization import METRICS

__all__ = ["STEPS", "page"]

STEPS: Final = ("Load", "Roles", "Hierarchies", "Privacy", "Run", "Explore", "Export")
_HIER_TYPES: Final = {
    "file": "hierarchy file",
    **{name: name for name in BUILDERS},
}
_HIER_HELP: Final = (
    "intervals: numbers in bins of growing width, e.g. widths = [5, 10, 20]. "
    "masking: codes masked from the end (zip 02134 -> 0213* -> 021**), e.g. levels = 3. "
    "dates: (time ->) day -> month -> year, e.g. "
    'levels = ["day", "month", "year"], format = "%d/%m/%Y %H:%M". '
    'ordered: values in a given order grouped by fanouts, e.g. order = ["a", "b", "c", "d"], '
    "fanouts = [2, 2]. suppression: the value or *. A hierarchy file has one row per value, "
    "its generalizations to the right (separator ; or ,)."
)
_ALGORITHM_HELP: Final = (
    "auto: Flash (finds the transformation with the least loss, optimal) unless the lattice "
    "is huge, then Mondrian. Full-domain searches (flash, exhaustive, samarati, datafly, "
    "incognito) generalize a whole column at once; mondrian, greedy_merge and "
    "microaggregation recode groups of records locally (less loss, less uniform labels)."
)
_COSTS: Final = ("nllm", "llm", "wllm", "wnllm", "ncp", "distortion", "total")
_NUMERIC_RELEASE: Final = {"range": "ranges [lo-hi]", "mean": "the group's mean"}
_METRIC_HELP: Final = (
    "What the search minimizes. loss: the share of a cell's possible values it could stand "
    "for (Iyengar), a good default. height: generalization steps. discernibility and "
    "average_class_size: how large the groups are. precision: share of hierarchy steps used."
)

_KOPTIMIZE_METRIC_HELP: Final = (
    "What k-Optimize minimizes. discernibility: a kept record costs its group's size, a "
    "suppressed one the table's. classification: records suppressed or outside their "
    "group's majority label; name the label column in Other options (class_column = ...)."
)


def _help(text: str) -> ui.Tag:
    return ui.p(text, class_="form-text text-muted small")


def _load_page(preloaded: Path | None, server_files: bool) -> ui.Tag:
    sources = {"adult": "Bundled UCI Adult", "path": "File path", "upload": "Upload a file"}
    if not server_files and preloaded is None:  # nothing named on the page is read
        del sources["path"]
    return ui.layout_columns(
        ui.card(
            ui.card_header("Table"),
            ui.input_radio_buttons(
                "source",
                "Source",
                sources,
                selected="path" if preloaded is not None else "adult",
            ),
            ui.input_text(
                "path",
                "Path of a CSV, TSV or Parquet file",
                value="" if preloaded is None else str(preloaded),
                width="100%",
            )
            if "path" in sources
            else None,
            ui.input_file("upload", "Upload", accept=[".csv", ".tsv", ".txt", ".parquet"]),
            ui.input_text("separator", "Separator (blank: detected; \\t for tab)"),
            ui.input_text("encoding", "Encoding", value="utf-8"),
            ui.input_text("missing", "Missing-value cells, comma-separated (blank: detected)"),
            ui.input_select("strip", "Trim spaces", {"auto": "detect", "yes": "yes", "no": "no"}),
            ui.input_select(
                "decimal_comma",
                "Decimal comma (49,4 read as 49.4)",
                {"auto": "detect", "yes": "yes", "no": "no"},
            ),
            ui.input_action_button("load", "Load", class_="btn-primary"),
            ui.output_ui("load_error"),
        ),
        ui.card(
            ui.card_header("Preview"),
            ui.output_ui("load_summary"),
            ui.div(ui.output_ui("preview"), style="overflow-x: auto"),
            ui.input_action_button("to_roles", "Next: roles", class_="btn-success"),
        ),
        col_widths=(4, 8),
    )


def _roles_page() -> ui.Tag:
    return ui.div(
        _help(
            "Quasi-identifiers are what an outsider could know (age, sex, zip): they are "
            "generalized. Identifying columns (names, e-mails) are removed. Sensitive "
            "columns are kept and protected by models such as l-diversity; insensitive ones "
            "are kept as they are. The roles below are proposals with their reason."
        ),
        ui.output_ui("roles_table"),
        ui.output_ui("leak_marks"),
        ui.h4("Leaks"),
        _help(
            "Columns kept as they are must not give quasi-identifiers away; errors "
            "(red) must be resolved by changing a role before going on."
        ),  # fmt: skip
        ui.output_ui("leaks"),
        ui.input_action_button("to_hierarchies", "Next: hierarchies", class_="btn-success"),
    )


def _hierarchies_page() -> ui.Tag:
    return ui.layout_columns(
        ui.card(
            ui.card_header("Edit a hierarchy"),
            ui.output_ui("hier_gate"),
            ui.input_select("h_type", "Kind", _HIER_TYPES, selected="suppression"),
            ui.input_text("h_params", "Builder parameters (key = value, ...)", width="100%"),
            ui.input_text("h_path", "Hierarchy file path", width="100%"),
            ui.input_file("h_upload", "or upload a hierarchy file", accept=[".csv", ".txt"]),
            ui.input_action_button("h_apply", "Use this hierarchy", class_="btn-primary"),
            ui.output_ui("hier_error"),
            _help(_HIER_HELP),
        ),
        ui.card(
            ui.card_header("Preview on the real values"),
            _help(
                "The preview follows the editor as you type: each level's groups, the "
                "records in the smallest group, and the most frequent values generalized. "
                "Nothing changes until you press Use this hierarchy."
            ),
            ui.output_ui("hier_preview"),
            ui.h5("All quasi-identifiers"),
            ui.output_ui("hier_summary"),
        ),
        col_widths=(5, 7),
    )


def _numeric(label: str, name: str, *, high: float | None = None, step: float = 1) -> ui.Tag:
    """A number field that is 0 (off) by default."""
    return ui.input_numeric(name, label, value=0, min=0, max=high, step=step)


def _privacy_card() -> ui.Tag:
    return ui.card(
        ui.card_header("Privacy"),
        ui.input_numeric(
            "k",
            "k (every record shares its quasi-identifiers with k-1 others; 0: off)",
            value=5,
            min=0,
        ),  # fmt: skip
        ui.input_numeric(
            "suppression",
            "Suppression limit (% of records that may be removed)",
            value=5,
            min=0,
            max=100,
        ),  # fmt: skip
        _help(
            "k = 5 means an attacker who knows someone's quasi-identifiers finds at "
            "least 5 candidates. Suppressing a few outliers saves much generalization."
        ),
        ui.output_ui("privacy_attrs"),
        _numeric("l-diversity: distinct sensitive values per group (0: off)", "l"),
        ui.input_select(
            "l_variant", "l-diversity variant", ["distinct_l_diversity", "entropy_l_diversity"]
        ),  # fmt: skip
        _numeric(
            "t-closeness: largest distance of a group's sensitive values from the table's (0: off)",
            "t",
            high=1,
            step=0.05,
        ),  # fmt: skip
        ui.input_select(
            "t_variant", "t-closeness variant", ["equal_t_closeness", "ordered_t_closeness"]
        ),  # fmt: skip
        ui.input_text_area(
            "more_models",
            'Other models, one per line as key = value (e.g. name = "average_risk", '
            "threshold = 0.05)",
            width="100%",
        ),
        _help("Other model names: " + ", ".join(workflow.model_names()) + "."),
    )


def _population_card() -> ui.Tag:
    return ui.card(
        ui.card_header("Population"),
        _help(
            "When the data is a sample of a known population (a register, a census), an "
            "attacker may know someone is in the population without knowing they are in "
            "the sample. Give the population table (holding the quasi-identifiers, read "
            "like the data) to measure this journalist risk and to use k-map and "
            "delta-presence."
        ),
        ui.input_text("population_path", "Population table path", width="100%"),
        ui.input_file("population_upload", "or upload it", accept=[".csv", ".tsv", ".parquet"]),
        ui.input_action_button("population_apply", "Use this population", class_="btn-primary"),
        ui.input_action_button("population_clear", "No population", class_="ms-2"),
        ui.output_ui("population_state"),
        _numeric("k-map: population records every group must match (0: off)", "k_map"),
        _help("k-map = 10: whoever an attacker picks in the population, 10 candidates match."),
        _numeric(
            "delta-presence, largest share of a group's population records in the data (0: off)",
            "delta_max",
            high=1,
            step=0.05,
        ),  # fmt: skip
        _numeric("delta-presence, smallest share", "delta_min", high=1, step=0.05),
        _help("Bounds how sure an attacker can be that someone is in the data at all."),
    )


_WHEN = "['{}'].includes(input.algorithm)"
#: The algorithms the Metric field is shown for ("auto" chooses a full-domain search).
_WITH_METRIC = [
    a
    for a in dict.fromkeys(workflow.ALGORITHM_CHOICES)
    if takes_keyword(a, "metric") and a not in OWN_METRICS
]


def _utility_card() -> ui.Tag:
    return ui.card(
        ui.card_header("Utility"),
        ui.input_select("algorithm", "Algorithm", list(workflow.ALGORITHM_CHOICES)),
        _help(_ALGORITHM_HELP),
        ui.panel_conditional(
            _WHEN.format("', '".join(workflow.NUMERIC_ALGORITHMS)),
            ui.output_ui("numeric_choice"),
            _help(
                "Numeric quasi-identifiers are split at their median (Mondrian) or "
                "replaced by their group's aggregate (microaggregation, which needs every "
                "quasi-identifier numeric) instead of following a hierarchy."
            ),
        ),
        ui.panel_conditional(
            _WHEN.format("mondrian"),
            ui.input_select("numeric_release", "Numbers released as", _NUMERIC_RELEASE),
            ui.input_select("mode", "Partitioning", {"strict": "strict", "relaxed": "relaxed"}),
            ui.input_select("split", "Split dimension", ["widest", "distinct", "round_robin"]),
        ),
        ui.panel_conditional(
            _WHEN.format("microaggregation"),
            ui.input_select("method", "Grouping", ["mdav", "univariate", "gmm"]),
            ui.input_select("aggregate", "Groups released as their", ["mean", "median", "mode"]),
        ),
        ui.panel_conditional(
            _WHEN.format("greedy_merge"),
            ui.input_select("cost", "Cost", [*_COSTS]),
        ),
        ui.input_text(
            "algorithm_options", "Other options (key = value, ...)", width="100%"
        ),  # fmt: skip
        _help("Keys: " + ", ".join(workflow.ALGORITHM_OPTIONS) + "."),
        ui.panel_conditional(  # the local recodings have no metric to choose
            _WHEN.format("', '".join(_WITH_METRIC)),
            ui.input_select("metric", "Metric", list(METRICS), selected="loss"),
            _help(_METRIC_HELP),
        ),
        ui.panel_conditional(
            _WHEN.format("k_optimize"),
            ui.input_select("k_optimize_metric", "Metric", list(OWN_METRICS["k_optimize"])),
            _help(_KOPTIMIZE_METRIC_HELP),
        ),
        ui.output_ui("settings_error"),
    )


def _privacy_page() -> ui.Tag:
    return ui.layout_columns(_privacy_card(), _population_card(), _utility_card())


def _run_page() -> ui.Tag:
    return ui.div(
        _help(
            "The run happens in the background: the page stays responsive, and Cancel "
            "stops it at its next step."
        ),  # fmt: skip
        ui.input_task_button("run", "Run", label_busy="Running..."),
        ui.input_action_button("cancel", "Cancel", class_="btn-outline-danger ms-2"),
        ui.div(ui.output_ui("run_status"), class_="mt-3"),
    )


def _export_page() -> ui.Tag:
    return ui.div(
        ui.input_text(
            "output_name",
            "Release file named in the configuration (blank: <data>.anonymized.csv)",
            width="100%",
        ),  # fmt: skip
        ui.div(
            ui.download_button("download_csv", "Release (CSV)"),
            ui.download_button("download_parquet", "Release (Parquet)", class_="ms-2"),
            ui.download_button("download_toml", "Configuration (TOML)", class_="ms-2"),
            ui.download_button("download_report", "Report (HTML)", class_="ms-2"),
            class_="my-3",
        ),
        _help(
            "`anonkit anonymize anonkit-config.toml` reproduces the release with the command line."
        ),  # fmt: skip
        ui.output_ui("export_state"),
    )


def page(preloaded: Path | None = None, *, server_files: bool = True) -> ui.Tag:
    """The seven-step page (navbar ``step``); ``preloaded`` is the table given at start;
    without ``server_files`` (the app listens beyond this machine) the table comes from
    an upload, the bundled data or ``preloaded``, not from a path typed on the page."""
    panels = [
        ui.nav_panel("Load", _load_page(preloaded, server_files)),
        ui.nav_panel("Roles", _roles_page()),
        ui.nav_panel("Hierarchies", _hierarchies_page()),
        ui.nav_panel("Privacy", _privacy_page()),
        ui.nav_panel("Run", _run_page()),
        ui.nav_panel("Explore", ui.output_ui("explore")),
        ui.nav_panel("Export", _export_page()),
    ]
    return ui.page_navbar(
        *panels, id="step", title="anonkit", window_title="anonkit app", lang="en"
    )
