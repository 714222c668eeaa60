"""The boundary of every output and effect of ``anonkit app``: an unexpected error is
told to the user by its type only and the session goes on.

Shiny prints an error raised by a render function or an effect with its message, and an
error in an effect closes the user's session. Errors of other libraries (polars' and
numpy's among them) can quote the records they stopped on, so :func:`guard` catches
them where Shiny would: the user sees one notification naming the step and the error's
type, a line naming the same goes to the ``anonkit.app`` logger (with where it was
raised, never the message), and the output is left empty or the effect does nothing.
As in the command line (:func:`anonkit.cli.common.guarded`), ``ANONKIT_SHOW_ERRORS=1``
shows the message too, and logs the traceback.

The library's own errors (:class:`~anonkit.exceptions.AnonkitError`), whose messages name
columns and counts and never a record, are shown with their message: the steps catch
them next to the field they concern, and one that reaches the boundary is notified as
it is. Shiny's own control-flow exceptions (``req()`` and its kin) pass through.
"""

from __future__ import annotations

import functools
import logging
import os
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

from anonkit.exceptions import SHOW_ERRORS, AnonkitError, ParameterError

__all__ = [
    "SHOW_ERRORS",
    "ExportFailedError",
    "FieldError",
    "NotReadyError",
    "guard",
    "guard_download",
    "what_failed",
]

F = TypeVar("F", bound=Callable[..., Any])

_log = logging.getLogger("anonkit.app")


class NotReadyError(AnonkitError, ValueError):
    """A step asked for before the one it needs (the message says which): the app's own
    error, shown with its message."""


class FieldError(ParameterError):
    """A field of a page holding a value the run refuses, told in the page's words:
    "<field>: <advice>. Got <value>." (the field as the page labels it; ``parameter``,
    ``expected`` and ``got`` as :class:`~anonkit.exceptions.ParameterError` has them).

    Examples
    --------
    >>> str(FieldError("t-closeness t", "enter a number between 0 and 1", 1.5))
    't-closeness t: enter a number between 0 and 1. Got 1.5.'
    """

    def __init__(
        self, field: str, advice: str, got: object = None, *, parameter: str | None = None
    ) -> None:
        super().__init__(parameter or field, field, advice, got)
        self.field = field
        shown = "" if got is None else f" Got {_typed(got)}."
        self.args = (f"{field}: {advice}.{shown}",)


def _typed(value: object) -> str:
    """A value as it was typed: 150 for 150.0, text without quotes."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


class ExportFailedError(RuntimeError):
    """A download that failed; the user has been told why (its message names the step
    and the error's type only), so the web server logs no record."""


def what_failed(step: str, err: BaseException) -> str:
    """The sentence shown for ``err`` raised by ``step``: the library's message as it
    is, any other error by its type only (unless ``ANONKIT_SHOW_ERRORS`` is set).

    Examples
    --------
    >>> from anonkit.exceptions import ConfigError
    >>> what_failed("Reading the table", ConfigError("Give a file path."))
    'Reading the table failed: Give a file path.'
    """
    if isinstance(err, AnonkitError):
        return f"{step} failed: {err}"
    kind = type(err).__name__
    if os.environ.get(SHOW_ERRORS):
        return f"{step} failed ({kind}: {err}); nothing was changed."
    return f"{step} failed ({kind}); nothing was changed. Set {SHOW_ERRORS}=1 to see the message."


def _is_control_flow(err: BaseException) -> bool:
    """Shiny's exceptions that steer the reactive graph (``req``, a task still running,
    a notification an effect asks for): never an error of the app."""
    from shiny import types

    return isinstance(
        err, (types.SilentException, types.SilentCancelOutputException, types.NotifyException)
    )


def _report(step: str, err: Exception) -> None:
    """Log ``err`` without its message and show the user one notification about it."""
    where = traceback.extract_tb(err.__traceback__)[-1:] if err.__traceback__ else []
    place = f" at {where[0].filename}:{where[0].lineno} in {where[0].name}" if where else ""
    if os.environ.get(SHOW_ERRORS) or isinstance(err, AnonkitError):
        _log.warning("%s failed%s", step, place, exc_info=bool(os.environ.get(SHOW_ERRORS)))
    else:
        _log.warning("%s failed (%s)%s", step, type(err).__name__, place)
    _notify(what_failed(step, err), step)


def _notify(text: str, step: str) -> None:
    """One error notification per step (a repeated failure replaces it)."""
    from shiny import ui

    key = "anonkit-error-" + "".join(c if c.isalnum() else "-" for c in step.lower())
    try:
        ui.notification_show(text, type="error", duration=None, id=key)
    except RuntimeError:  # no session (a function called outside Shiny): logged only
        pass


def guard(step: str) -> Callable[[F], F]:
    """Decorate a render function or an effect (below Shiny's decorator): an error it
    raises is shown as one notification naming ``step`` and the function returns
    ``None`` (an empty output; an effect that changes nothing), so the session lives on.

    ``step`` says what the function does, as the user would put it ("Profiling the
    columns"); the notification reads "<step> failed (<error type>); nothing was
    changed."
    """

    return _boundary(step, download=False)


def guard_download(step: str) -> Callable[[F], F]:
    """:func:`guard` for a download handler, which has no empty answer: after the
    notification it raises :class:`ExportFailedError` (its message names the step and
    the type), so the browser's download fails and the server logs no record."""

    return _boundary(step, download=True)


def _boundary(step: str, *, download: bool) -> Callable[[F], F]:
    """The decorator of :func:`guard` (``download`` false) and :func:`guard_download`."""

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return func(*args, **kwargs)
            except Exception as err:
                if _is_control_flow(err):
                    raise
                _report(step, err)
                if download:
                    raise ExportFailedError(f"{step} failed ({type(err).__name__}).") from None
                return None

        return wrapper  # type: ignore[return-value]

    return decorate
