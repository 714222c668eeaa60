"""The independent re-check of a release (issue 15: verified release, risk out loud)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from anonkit import anonymize
from anonkit.exceptions import ReleaseVerificationError
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.verify import release_risk, verify_release


def _release() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "zip": ["130**", "130**", "130**", "148**", "148**", "*"],
            "age": ["<40", "<40", "<40", ">=40", ">=40", "*"],
            "disease": ["flu", "cold", "flu", "flu", "cold", "flu"],
        }
    )


def test_a_private_release_is_verified_with_its_risk() -> None:
    v = verify_release(
        _release(),
        quasi_identifiers=["zip", "age"],
        models=[KAnonymity(2), DistinctLDiversity("disease", l=2)],
        n_records=6,
        suppression_limit=0.2,
    )
    assert v.verified and v.suppressed == 1 and v.n_classes == 2
    assert v.risk["prosecutor_max"] == 0.5
    assert v.risk["sample_uniques"] == 0
    assert v.to_dict()["verified"] is True


def test_a_class_below_k_is_a_bug_that_stops_the_run() -> None:
    with pytest.raises(ReleaseVerificationError, match="3-anonymity"):
        verify_release(
            _release(),
            quasi_identifiers=["zip", "age"],
            models=[KAnonymity(3)],
            n_records=6,
            suppression_limit=0.2,
        )


def test_suppression_beyond_the_limit_is_caught() -> None:
    with pytest.raises(ReleaseVerificationError, match="suppressed"):
        verify_release(
            _release().head(5),  # a dropped record counts as suppressed
            quasi_identifiers=["zip", "age"],
            models=[KAnonymity(2)],
            n_records=7,
            suppression_limit=0.2,
        )


def test_fully_generalized_records_beyond_the_limit_are_one_class() -> None:
    top = pl.DataFrame({"zip": ["*"] * 4, "age": ["*"] * 4})
    v = verify_release(
        top,
        quasi_identifiers=["zip", "age"],
        models=[KAnonymity(4)],
        n_records=4,
        suppression_limit=0.0,
    )
    assert v.suppressed == 0 and v.n_classes == 1
    with pytest.raises(ReleaseVerificationError):
        verify_release(
            top,
            quasi_identifiers=["zip", "age"],
            models=[KAnonymity(5)],
            n_records=4,
            suppression_limit=0.0,
        )


def test_release_risk_figures() -> None:
    r = release_risk(np.array([1, 2, 2, 5]))
    assert r["prosecutor_max"] == 1.0
    assert r["sample_uniques"] == 1
    assert r["records_at_risk"] == pytest.approx(5 / 10)
    assert r["journalist_max"] is None
    assert release_risk(np.array([2, 2]), np.array([10, 4]))["journalist_max"] == 0.25


@pytest.mark.parametrize(
    ("algorithm", "extra"),
    [
        ("flash", {"suppression_limit": 0.1}),
        ("flash", {"suppression_limit": 0.1, "suppressed": "drop"}),
        ("flash", {"suppression_limit": 0.1, "local_suppression": True}),
        ("mondrian", {}),
        ("greedy_merge", {}),
    ],
)
def test_anonymize_verifies_every_release(algorithm: str, extra: dict[str, object]) -> None:
    from anonkit.datasets import load_adult

    frame, hierarchies = load_adult()
    frame = frame.head(3000)
    res = anonymize(
        frame,
        quasi_identifiers=["sex", "age", "race", "education"],
        hierarchies=hierarchies,
        k=5,
        algorithm=algorithm,
        sensitive=["occupation"],
        others="drop",
        **extra,
    )
    assert res.verified
    assert res.to_dict()["verified"] is True
    assert 0 < res.risk["prosecutor_max"] <= 1 / 5
    assert res.checks["models"][0]["satisfied"]


def test_fully_generalized_records_match_the_whole_population() -> None:
    from anonkit.models import KMap

    top = pl.DataFrame({"zip": ["*"] * 3, "age": ["*"] * 3})
    population = pl.DataFrame({"zip": ["1305", "1306", "1487", "1488"], "age": ["30"] * 4})
    v = verify_release(
        top,
        quasi_identifiers=["zip", "age"],
        models=[KMap(4)],
        n_records=3,
        suppression_limit=0.0,
        population=population,
        hierarchies={"zip": {"type": "masking"}, "age": {"type": "suppression"}},
    )
    assert v.verified and v.n_classes == 1


@pytest.mark.parametrize(
    "models",
    [[KAnonymity(2)], [KAnonymity(2), DistinctLDiversity("disease", l=2)], [KAnonymity(3)]],
)
@pytest.mark.parametrize("limit", [0.0, 0.2])
def test_a_release_and_its_tally_verify_alike(models: list, limit: float) -> None:
    """A release tallied by its quasi-identifiers and sensitive values (one row per
    combination, as out-of-core fits check it) gets the verdict of the release itself:
    class sizes summed over the sensitive values, the suppressed rows counted by weight."""
    release = pl.concat([_release()] * 3)
    tally = release.group_by(["zip", "age", "disease"]).agg(pl.len().alias("n"))
    check = {"quasi_identifiers": ["zip", "age"], "models": models, "n_records": 18}

    def verdict(frame: pl.DataFrame, weight: str | None) -> tuple[object, ...]:
        try:
            v = verify_release(frame, suppression_limit=limit, weight=weight, **check)
        except ReleaseVerificationError as error:
            return ("failed", str(error))
        return (v.suppressed, v.n_classes, [dict(m) for m in v.models], dict(v.risk))

    assert verdict(tally, "n") == verdict(release, None)


def test_everything_suppressed_against_a_population_has_journalist_risk_zero() -> None:
    """With a population table and every record suppressed, the journalist figures are 0
    as the prosecutor ones are (and as evaluate() says), not None ("no population")."""
    from anonkit.models import KMap

    top = pl.DataFrame({"zip": ["*"] * 3, "age": ["*"] * 3})
    population = pl.DataFrame({"zip": ["1305", "1306", "1487", "1488"], "age": ["30"] * 4})
    v = verify_release(
        top,
        quasi_identifiers=["zip", "age"],
        models=[KMap(5)],
        n_records=3,
        suppression_limit=1.0,
        population=population,
        hierarchies={"zip": {"type": "masking"}, "age": {"type": "suppression"}},
        suppressed=3,
    )
    assert v.verified and v.n_classes == 0 and v.suppressed == 3
    assert v.risk["prosecutor_max"] == 0.0
    assert v.risk["journalist_max"] == 0.0 and v.risk["journalist_average"] == 0.0
