"""What one browser session of ``anonkit app`` keeps while the user moves between pages.

:class:`AppState` holds the reactive values (the chosen table, the hierarchies, the last
run) and, once the step modules of :mod:`anonkit.app.steps` have wired themselves, the
reactive calculations later steps read (the loaded table, the roles, whether the roles
are ready). Each step module fills the attributes it owns; the server wires the steps in
page order, so every step finds what the earlier ones provide.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from shiny import reactive, ui

from anonkit.app import results, workflow
from anonkit.app.population import Population
from anonkit.core.resolve import HierarchySpec
from anonkit.datasets import adult_path
from anonkit.exceptions import ConfigError

__all__ = ["AppState", "go"]


class AppState:
    """The reactive state of one session.

    Attributes set by the step modules
    ----------------------------------
    loaded
        The loaded table (silent until one is loaded).
    by_role
        The columns of each role as the user chose them.
    roles_ready
        Whether the roles have a quasi-identifier and no blocking leak.
    settings_or_error
        The privacy page's settings, or the error that names the bad field.

    The population table (or the error of reading it) is the reactive value
    ``population``.
    """

    loaded: Callable[[], workflow.Loaded]
    by_role: Callable[[], dict[str, list[str]]]
    roles_ready: Callable[[], bool]
    settings_or_error: Callable[[], workflow.Settings | BaseException]

    def __init__(self, data: Path | None, workdir: Path, *, server_files: bool = True) -> None:
        self.workdir = workdir
        #: Whether the user may name files on the server (the app listens on loopback);
        #: otherwise only uploads, the bundled data and the table given at start are read.
        self.server_files = server_files
        self._preloaded = data
        # named: for an unnamed value Shiny reads the source of the whole call stack
        self.source: reactive.Value[tuple[str, Path, str] | None] = reactive.value(
            ("path", data, data.name) if data is not None else None, name="source"
        )
        self.hier_specs: reactive.Value[dict[str, HierarchySpec]] = reactive.value(
            {}, name="hier_specs"
        )
        self.renamed: reactive.Value[dict[str, str]] = reactive.value({}, name="renamed")
        self.progress_box: reactive.Value[results.RunProgress | None] = reactive.value(
            None, name="progress_box"
        )
        self.outcome: reactive.Value[results.RunOutcome | None] = reactive.value(
            None, name="outcome"
        )
        self.population: reactive.Value[Population | BaseException | None] = reactive.value(
            None, name="population"
        )

    def readable(self, path: Path) -> Path:
        """``path``, if this session may read it.

        Raises
        ------
        ConfigError
            If the app listens beyond this machine and ``path`` is not an upload of this
            session, the bundled data or the table given at start: whoever reaches the
            page would otherwise read any file of the server.
        """
        if self.server_files:
            return path
        found = path.expanduser().resolve()
        folders = (self.workdir.resolve(), adult_path().resolve())
        if any(found.is_relative_to(folder) for folder in folders) or (
            self._preloaded is not None and found == self._preloaded.expanduser().resolve()
        ):
            return path
        raise ConfigError(
            f"Cannot read {path}: the app listens on a network address, so it reads no file "
            "named on the page; upload the file instead."
        )

    def named_file(self, text: str | Path) -> Path:
        """The file a field of the page names, absolute, once :meth:`readable` allows it.

        Every path typed on a page (the table, a hierarchy file, the population table, a
        file parameter of a model) comes here before anything reads it. A relative path
        is the server's working directory's, as the file read: the export writes it
        absolute, since the CLI would read it from the configuration's folder.

        Raises
        ------
        ConfigError
            As :meth:`readable`.
        """
        path = Path(text).expanduser()
        self.readable(path)
        return path.resolve()

    def upload_target(self, files: Any, folder: str) -> tuple[Path, str] | None:
        """Copy the first uploaded file into a folder of its own under ``workdir/folder``
        (two uploads of one name stay apart); its path and own name."""
        import shutil
        import tempfile

        if not files:
            return None
        first = files[0]
        name = Path(first["name"]).name
        (self.workdir / folder).mkdir(parents=True, exist_ok=True)
        target = Path(tempfile.mkdtemp(prefix="upload-", dir=self.workdir / folder)) / name
        shutil.copyfile(first["datapath"], target)
        return target, name


def go(step: str) -> None:
    """Open the page of ``step``."""
    ui.update_navset("step", selected=step)
