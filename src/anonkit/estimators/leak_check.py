"""A fit's leak check, running beside the fit (see :mod:`anonkit._beside`).

The check (:func:`anonkit.safety.leaks.find_leaks`) asks of every column released as it
is whether it looks like an identifier, determines a quasi-identifier or is near-unique.
The identifier patterns need the values; the other two questions need only which values
go together, which a full-domain fit counts anyway for its privacy models: its sensitive
attributes and quasi-identifiers, in the detail snapshot. So :class:`PendingLeaks` starts
the check with the fit, leaving those columns' counting questions for the fit to answer
from its count (:meth:`PendingLeaks.tally`): the records are not hashed and counted a
second time while the fit needs the cores (the ``occupation 3-diverse`` rows of
``benchmarks/safety_overhead.py``). A column the fit leaves untallied is checked from the
records when the answer is due, so none goes unchecked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import Any

import polars as pl

from anonkit._beside import beside
from anonkit.core.values import text_apart
from anonkit.exceptions import LeakError, LeakWarning, warn_caller
from anonkit.safety.leaks import ColumnCodes, Leak, TallyCodes, find_leaks, in_order, value_leaks

__all__ = ["PendingLeaks", "settle_leaks", "warn_leaks"]


class PendingLeaks:
    """The leak check of ``released`` in ``data``, started beside the fit.

    Like a :class:`~concurrent.futures.Future` of :func:`~anonkit.safety.leaks.check_leaks`:
    :meth:`exception` and :meth:`result` wait for the part still running and answer for
    the whole check, every error in one :class:`~anonkit.exceptions.LeakError` in
    :func:`~anonkit.safety.leaks.find_leaks`'s order.

    Parameters
    ----------
    data
        The table (read only, by the worker thread too).
    quasi_identifiers, released
        As :func:`~anonkit.safety.leaks.find_leaks`.
    tallied
        Released columns whose dependencies and uniqueness the fit reads from its count
        (:meth:`tally`); the part running beside matches only their identifier patterns.
        A column whose count merges values the release keeps apart (text with surrounding
        blanks, floats) is checked from the records when the answer is due; :meth:`tally`
        asks the records which columns those are, unless the count read them verbatim.
    """

    def __init__(
        self,
        data: pl.DataFrame,
        quasi_identifiers: Sequence[str],
        released: Sequence[str],
        tallied: Sequence[str] = (),
    ) -> None:
        self._data = data
        self._qi = list(quasi_identifiers)
        self._released = list(released)
        #: Tallied columns not checked yet.
        self._untallied = [c for c in tallied if c in self._released]
        self._running: Future[list[Leak]] = beside(
            find_leaks,
            data,
            quasi_identifiers=self._qi,
            released=self._released,
            tallied=list(self._untallied),
        )
        self._found: list[Leak] = []

    @property
    def tallied(self) -> list[str]:
        """The columns :meth:`tally` is to check."""
        return list(self._untallied)

    def tally(self, coded: TallyCodes, verbatim: Sequence[str] = ()) -> None:
        """Check the tallied columns from ``coded``, the fit's count of them and the
        quasi-identifiers.

        Only columns the count tells apart as released are checked here: a count of
        normalized text would not see blanks that give a quasi-identifier away while the
        release keeps them. Those the count read ``verbatim`` (see
        :attr:`SensitiveCodes.verbatim <anonkit.core.encoding.SensitiveCodes.verbatim>`)
        are apart; of the others the records say (:func:`~anonkit.core.values.text_apart`,
        a pass over their distinct values that the verbatim ones are spared). The rest are
        checked from the records when the answer is due.

        Raises
        ------
        LeakError
            At once if one of them leaks, with the errors of the part running beside (the
            search need not run for a release that will not be returned).
        """
        asked = [c for c in self._untallied if c not in verbatim]
        apart = set(text_apart(self._data, asked)) if asked else set()
        exact = [c for c in self._untallied if c in verbatim or c in apart]
        self._found += value_leaks(coded, quasi_identifiers=self._qi, released=exact)
        self._untallied = [c for c in self._untallied if c not in exact]
        if any(leak.severity == "error" for leak in self._found):
            error = self.exception()
            assert error is not None
            raise error

    def _leaks(self) -> list[Leak]:
        """Every leak (waiting for the part running beside; raising its error); the
        columns still untallied are checked from the records."""
        running = self._running.result()
        if self._untallied:
            coded = ColumnCodes(self._data, [*self._untallied, *self._qi])
            self._found += value_leaks(coded, quasi_identifiers=self._qi, released=self._untallied)
            self._untallied = []
        return in_order([*running, *self._found], self._released)

    def exception(self) -> BaseException | None:
        """The check's error, once it has ended: a :class:`LeakError` of every error leak,
        the error the check itself ran into, or ``None``."""
        try:
            self.result()
        except Exception as error:  # a leak, or the check's own failure (an unknown column)
            return error
        return None

    def result(self) -> list[Leak]:
        """The warnings, once the check has ended.

        Raises
        ------
        LeakError
            If a column leaks, with every error leak.
        """
        leaks = self._leaks()
        errors = [leak for leak in leaks if leak.severity == "error"]
        if errors:
            raise LeakError(errors)
        return leaks


def warn_leaks(checks: Mapping[str, Any]) -> None:
    """A :class:`~anonkit.exceptions.LeakWarning` at the caller's line for each warning
    of a fit's leak check (``result.checks``): the CLI prints them, a Python user would
    otherwise find them only in the result."""
    for leak in checks.get("leak_warnings", ()):
        warn_caller(LeakWarning(leak["column"], leak["kind"], leak["reason"]))


def settle_leaks(safety: dict[str, Any], pending: PendingLeaks | None) -> None:
    """Wait for the leak check ``pending`` (:meth:`Estimator._leak_check
    <anonkit.estimators.base.Estimator._leak_check>`); raise its
    error or record its warnings in ``safety``."""
    if pending is not None:
        safety["leak_warnings"] = [w.to_dict() for w in pending.result()]
