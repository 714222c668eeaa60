"""The privacy models of the Privacy page, by registry name and parameters, built as
the run builds them and refused in the page's words.

Moved out of :mod:`anonkit.app.workflow` (which re-exports :class:`ModelSpec`): a model
is built from its fields (ℓ-diversity, t-closeness, k-map, δ-presence) or a line of
Other models, whose file parameters (:data:`anonkit.app.files.MODEL_FILE_PARAMETERS`)
the session allowed when the page was read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from anonkit.app.files import MODEL_FILE_PARAMETERS, without_content
from anonkit.app.guard import FieldError
from anonkit.exceptions import HierarchyError, ParameterError
from anonkit.models.base import PrivacyModel
from anonkit.models.registry import model_from_config

__all__ = ["FIELD_ADVICE", "REAL_L_VARIANTS", "ModelSpec"]

#: What to type in the page's model fields (by their label) for a bad value.
FIELD_ADVICE: Final = {
    "l-diversity": "enter a whole number of at least 1, or 0 for off",
    "t-closeness t": "enter a number between 0 and 1, or 0 for off",
    "k-map": "enter a whole number of at least 1, or 0 for off",
    "delta-presence": "enter shares between 0 and 1, the smallest no larger than the "
    "largest, or 0 for off",
}
#: The advice of a field that depends on the model typed in it (by label and model name).
_MODEL_ADVICE: Final = {
    ("l-diversity", "entropy_l_diversity"): "enter a number of at least 1, or 0 for off",
}
#: The ℓ-diversity variants whose l is any real number >= 1 (the others' is whole).
REAL_L_VARIANTS: Final = ("entropy_l_diversity",)
#: The parameters those fields set (others are told as the API names them).
_FIELD_PARAMETERS: Final = ("l", "t", "k", "delta_min", "delta_max")


@dataclass(frozen=True)
class ModelSpec:
    """A privacy model by its registry name and parameters (the TOML ``models`` entry);
    ``label`` names the page's field it was typed in, for its errors (not compared)."""

    name: str
    params: Mapping[str, Any]
    label: str = field(default="", compare=False)

    def build(self) -> PrivacyModel:
        """The model (:func:`anonkit.models.registry.model_from_config`).

        Raises
        ------
        FieldError
            A bad parameter typed in the field ``label`` names (in the page's words).
        ParameterError, UnknownNameError
            Without ``label``, as the API raises them.
        HierarchyError
            A hierarchy file that is not one, told by its name and line, never its
            content (:func:`anonkit.app.files.without_content`).
        """
        try:
            return model_from_config(self.name, dict(self.params))
        except HierarchyError as err:  # only a file parameter is read into a hierarchy
            files = [self.params[k] for k in MODEL_FILE_PARAMETERS if k in self.params]
            if not files:
                raise
            raise without_content(err, str(files[0])) from None
        except ParameterError as err:
            if not self.label:
                raise
            advice = (
                _MODEL_ADVICE.get((self.label, self.name), FIELD_ADVICE.get(self.label))
                if err.parameter in _FIELD_PARAMETERS
                else None
            )
            raise FieldError(
                self.label, advice or f"{err.parameter} must be {err.expected}", err.got,
                parameter=err.parameter,
            ) from None  # fmt: skip
