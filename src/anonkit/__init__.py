"""anonkit: privacy-preserving publishing of microdata.

The public surface: :func:`anonymize` and its :class:`Anonymizer`, hierarchies and their
builders, privacy models, and the exceptions.
"""

from anonkit.api import Anonymizer, anonymize
from anonkit.core import hierarchy_builders as builders
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.schema import AttributeRole
from anonkit.exceptions import (
    AnonkitError,
    ConfigError,
    DataError,
    EmptyDataError,
    HierarchyError,
    InputEncodingError,
    InputFileError,
    InputFormatError,
    LeakError,
    MissingValuesError,
    OutputFormatError,
    ParameterError,
    PrivacyUnattainableError,
    ReleaseVerificationError,
    UndeclaredColumnsError,
    UnknownColumnError,
    UnknownNameError,
    ValuesNotInHierarchyError,
)
from anonkit.io.tables import read_table, write_table
from anonkit.metrics.classes import ClassProfile, class_profile
from anonkit.models import KAnonymity, PrivacyModel
from anonkit.result import AnonymizationResult

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
    "InputEncodingError",
    "InputFileError",
    "InputFormatError",
    "LeakError",
    "OutputFormatError",
    "ReleaseVerificationError",
    "UndeclaredColumnsError",
    "KAnonymity",
    "MissingValuesError",
    "ParameterError",
    "PrivacyModel",
    "PrivacyUnattainableError",
    "UnknownColumnError",
    "UnknownNameError",
    "ValuesNotInHierarchyError",
    "__version__",
    "anonymize",
    "builders",
    "class_profile",
    "read_table",
    "write_table",
]
