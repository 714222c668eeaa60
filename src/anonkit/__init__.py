"""anonkit: privacy-preserving publishing of microdata.

The public surface: :func:`anonymize` and its :class:`Anonymizer`, the estimators
(:mod:`anonkit.estimators`, :class:`Privacy`), hierarchies and their
builders, privacy models, and the exceptions.
"""

from __future__ import annotations

import importlib

#: Nothing is imported until a name is used (PEP 562), so that ``import anonkit`` and the
#: command line start at once (a Ctrl-C while they load is then caught by the CLI).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from anonkit import estimators
    from anonkit.api import Anonymizer, anonymize
    from anonkit.core import hierarchy_builders as builders
    from anonkit.core.hierarchy import Hierarchy
    from anonkit.core.schema import AttributeRole
    from anonkit.estimators import Privacy
    from anonkit.exceptions import (
        AnonkitError,
        ConfigError,
        DataError,
        EmptyDataError,
        HierarchyError,
        InputChangedError,
        InputEncodingError,
        InputFileError,
        InputFormatError,
        LeakError,
        LeakWarning,
        MissingValuesError,
        NotFittedError,
        OutputFormatError,
        OutputIsInputError,
        OutputLocationError,
        ParameterError,
        PrivacyUnattainableError,
        ReleaseVerificationError,
        SuppressedColumnWarning,
        UncoveredValueError,
        UndeclaredColumnsError,
        UnknownColumnError,
        UnknownNameError,
        ValuesNotInHierarchyError,
    )
    from anonkit.io.tables import read_table, write_table
    from anonkit.metrics.classes import ClassProfile, class_profile
    from anonkit.models import KAnonymity, PrivacyModel
    from anonkit.result import AnonymizationResult

#: Public name -> (module, attribute); ``None`` as attribute means the module itself.
_LAZY: dict[str, tuple[str, str | None]] = {
    "Anonymizer": ("anonkit.api", "Anonymizer"),
    "anonymize": ("anonkit.api", "anonymize"),
    "builders": ("anonkit.core.hierarchy_builders", None),
    "Hierarchy": ("anonkit.core.hierarchy", "Hierarchy"),
    "AttributeRole": ("anonkit.core.schema", "AttributeRole"),
    "read_table": ("anonkit.io.tables", "read_table"),
    "write_table": ("anonkit.io.tables", "write_table"),
    "ClassProfile": ("anonkit.metrics.classes", "ClassProfile"),
    "class_profile": ("anonkit.metrics.classes", "class_profile"),
    "KAnonymity": ("anonkit.models", "KAnonymity"),
    "PrivacyModel": ("anonkit.models", "PrivacyModel"),
    "AnonymizationResult": ("anonkit.result", "AnonymizationResult"),
    "estimators": ("anonkit.estimators", None),
    "Privacy": ("anonkit.estimators", "Privacy"),
    "AnonkitError": ("anonkit.exceptions", "AnonkitError"),
    "ConfigError": ("anonkit.exceptions", "ConfigError"),
    "DataError": ("anonkit.exceptions", "DataError"),
    "EmptyDataError": ("anonkit.exceptions", "EmptyDataError"),
    "HierarchyError": ("anonkit.exceptions", "HierarchyError"),
    "InputChangedError": ("anonkit.exceptions", "InputChangedError"),
    "InputEncodingError": ("anonkit.exceptions", "InputEncodingError"),
    "InputFileError": ("anonkit.exceptions", "InputFileError"),
    "InputFormatError": ("anonkit.exceptions", "InputFormatError"),
    "LeakError": ("anonkit.exceptions", "LeakError"),
    "LeakWarning": ("anonkit.exceptions", "LeakWarning"),
    "MissingValuesError": ("anonkit.exceptions", "MissingValuesError"),
    "NotFittedError": ("anonkit.exceptions", "NotFittedError"),
    "OutputFormatError": ("anonkit.exceptions", "OutputFormatError"),
    "OutputIsInputError": ("anonkit.exceptions", "OutputIsInputError"),
    "OutputLocationError": ("anonkit.exceptions", "OutputLocationError"),
    "ParameterError": ("anonkit.exceptions", "ParameterError"),
    "PrivacyUnattainableError": ("anonkit.exceptions", "PrivacyUnattainableError"),
    "ReleaseVerificationError": ("anonkit.exceptions", "ReleaseVerificationError"),
    "SuppressedColumnWarning": ("anonkit.exceptions", "SuppressedColumnWarning"),
    "UncoveredValueError": ("anonkit.exceptions", "UncoveredValueError"),
    "UndeclaredColumnsError": ("anonkit.exceptions", "UndeclaredColumnsError"),
    "UnknownColumnError": ("anonkit.exceptions", "UnknownColumnError"),
    "UnknownNameError": ("anonkit.exceptions", "UnknownNameError"),
    "ValuesNotInHierarchyError": ("anonkit.exceptions", "ValuesNotInHierarchyError"),
}


def __getattr__(name: str) -> Any:
    """Import a public name's module when the name is first used."""
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'anonkit' has no attribute {name!r}") from None
    value = importlib.import_module(module)
    result = value if attribute is None else getattr(value, attribute)
    globals()[name] = result
    return result


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__version__ = "0.1.0"

__all__ = [
    "AnonkitError",
    "AnonymizationResult",
    "Anonymizer",
    "AttributeRole",
    "ClassProfile",
    "ConfigError",
    "DataError",
    "EmptyDataError",
    "Hierarchy",
    "HierarchyError",
    "InputChangedError",
    "InputEncodingError",
    "InputFileError",
    "InputFormatError",
    "LeakError",
    "LeakWarning",
    "OutputFormatError",
    "OutputIsInputError",
    "OutputLocationError",
    "ReleaseVerificationError",
    "SuppressedColumnWarning",
    "UncoveredValueError",
    "UndeclaredColumnsError",
    "KAnonymity",
    "MissingValuesError",
    "NotFittedError",
    "ParameterError",
    "Privacy",
    "PrivacyModel",
    "PrivacyUnattainableError",
    "UnknownColumnError",
    "UnknownNameError",
    "ValuesNotInHierarchyError",
    "__version__",
    "anonymize",
    "builders",
    "class_profile",
    "estimators",
    "read_table",
    "write_table",
]
