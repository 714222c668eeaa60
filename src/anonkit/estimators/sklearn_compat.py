"""What scikit-learn asks of an estimator beyond its parameters: its tags, and the target
``y`` that ``fit`` and ``fit_transform`` take in second place.

Anonymization has no target, so ``y`` must be ``None``; it is accepted so that an estimator
can be the last step of a ``sklearn.pipeline.Pipeline``, which passes it. scikit-learn is
imported only when scikit-learn asks for the tags.
"""

from __future__ import annotations

from typing import Any

from anonkit.exceptions import ParameterError

__all__ = ["SKLEARN_STATE", "refuse_target", "sklearn_tags"]

#: Attributes scikit-learn sets on an estimator, which are not a fit's and which a refit
#: keeps (:meth:`Estimator._forget_fit <anonkit.estimators.base.Estimator._forget_fit>`):
#: a meta-estimator's callback context, set around a step's fit and deleted after it
#: (``Pipeline`` since scikit-learn 1.9), callbacks and metadata requests.
SKLEARN_STATE = ("_parent_callback_ctx", "_skl_callbacks", "_metadata_request")


def sklearn_tags() -> Any:
    """scikit-learn's tags of every estimator: a transformer of frames with text and
    categories, no target."""
    from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags

    inputs = InputTags(string=True, categorical=True)
    return Tags(
        estimator_type=None, target_tags=TargetTags(required=False),
        transformer_tags=TransformerTags(), input_tags=inputs,
    )  # fmt: skip


def refuse_target(y: object, owner: str) -> None:
    """Refuse a target ``y`` given to ``owner`` (``"FullDomain.fit"``), named by its type
    only: a target's values are the records'.

    Raises
    ------
    ParameterError
        If ``y`` is not ``None``.
    """
    if y is not None:
        raise ParameterError(
            "y",
            owner,
            "None (anonymization takes no target; give the columns' roles as keywords, in a "
            "Pipeline as the step's fit parameters: Pipeline.fit(X, "
            "<step>__quasi_identifiers=[...]))",
            type(y).__name__,
        )
