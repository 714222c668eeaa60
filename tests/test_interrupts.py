"""Ctrl-C that compiled code wrapped in a SystemError reaches the caller as what it was."""

from __future__ import annotations

import polars as pl
import pytest

import anonkit
from anonkit._interrupts import signalled
from anonkit.estimators.full_domain import FullDomain


def _wrapped(interruption: BaseException, *, how: str = "cause") -> SystemError:
    try:
        raise interruption
    except BaseException as err:
        try:
            if how == "cause":
                raise SystemError("returned a result with an exception set") from err
            raise SystemError("returned a result with an exception set")  # noqa: B904
        except SystemError as wrapper:
            return wrapper


@pytest.mark.parametrize("how", ["cause", "context"])
def test_the_interruption_behind_a_wrapper_is_found(how: str) -> None:
    stop = KeyboardInterrupt()
    assert signalled(_wrapped(stop, how=how)) is stop
    assert signalled(stop) is stop


def test_other_errors_hold_no_interruption() -> None:
    assert signalled(_wrapped(ValueError("bad"))) is None
    assert signalled(SystemError("alone")) is None
    cycle = ValueError("a")
    cycle.__context__ = ValueError("b")
    cycle.__context__.__context__ = cycle
    assert signalled(cycle) is None


def test_fit_raises_the_keyboard_interrupt(monkeypatch: pytest.MonkeyPatch) -> None:
    def run(self, fitting):  # type: ignore[no-untyped-def]
        raise _wrapped(KeyboardInterrupt())

    monkeypatch.setattr(FullDomain, "_run", run)
    frame = pl.DataFrame({"age": ["1", "2", "1", "2"], "x": ["a", "b", "a", "b"]})
    with pytest.raises(KeyboardInterrupt):
        anonkit.anonymize(frame, quasi_identifiers=["age"], insensitive=["x"], k=2)
    # a SystemError of its own is left as it is
    monkeypatch.setattr(
        FullDomain, "_run", lambda self, fitting: (_ for _ in ()).throw(SystemError("own"))
    )
    with pytest.raises(SystemError, match="own"):
        anonkit.anonymize(frame, quasi_identifiers=["age"], insensitive=["x"], k=2)
