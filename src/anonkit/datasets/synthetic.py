r"""A generated census-like table whose target depends on its quasi-identifiers at every depth.

:func:`load_synthetic` draws ``n`` records from the fixed generative model of
:mod:`anonkit.datasets.synthetic_model` with ``numpy.random.default_rng(seed)``: the same
``(n, seed)`` always gives the same table (every step is one vector draw of length ``n``, so
changing ``n`` changes every record).
The model is written so that anonymization matters for a classifier: the log-odds of the
target carry signal at the leaves of the hierarchies (lost as soon as a column is
generalized one level) and at their coarse levels (kept until the column is suppressed),
and the quasi-identifiers depend on each other (marital status on age, education on age,
occupation on education, hours on occupation, sex and age), so a generalized column is
partly recovered from the others. Almost every record is unique on the eight
quasi-identifiers (99.9 % of 50,000), as in real census extracts with a zip code.

Columns
-------
==================  ======  ====================================  =========
column              type    values                                hierarchy
==================  ======  ====================================  =========
``age``             Int64   17 .. 90                              intervals
``sex``             String  ``Female``, ``Male``                  flat
``zip``             String  288 five-digit codes (step 3)         masking
``marital-status``  String  6 statuses                            3 levels
``education``       String  10 degrees                            4 levels
``occupation``      String  12 occupations                        3 levels
``workclass``       String  6 classes of worker                   3 levels
``hours-per-week``  Int64   1 .. 99                               intervals
``income``          String  ``<=50K``, ``>50K`` (target, no QI)   none
==================  ======  ====================================  =========

The eight columns before ``income`` are the quasi-identifiers
(:data:`SYNTHETIC_QUASI_IDENTIFIERS`); ``age`` and ``hours-per-week`` are the numeric ones
(:data:`SYNTHETIC_NUMERIC`: Mondrian splits them as numbers, microaggregation aggregates
them).

Hierarchies (:func:`synthetic_hierarchies`)
-------------------------------------------
(The education, occupation and workclass tables are those of
:mod:`anonkit.datasets.synthetic_model`.)
They cover the whole domain of the model, not only the values a sample happens to hold, so
they are the same for every ``n`` and ``seed`` and cover any train/test split.

* ``age``: :func:`~anonkit.core.hierarchy_builders.intervals` on 17 .. 90, widths 5, 10,
  20 from 0: ``47 -> [45-50[ -> [40-50[ -> [40-60[ -> *`` (height 5).
* ``hours-per-week``: the same builder on 1 .. 99: ``38 -> [35-40[ -> [30-40[ -> [20-40[
  -> *`` (height 5).
* ``zip``: :func:`~anonkit.core.hierarchy_builders.masking` with 4 levels: ``10213 ->
  1021* -> 102** -> 10*** -> 1**** -> *`` (height 6). The digits are the geography:
  digit 1 the region, digits 1-2 the district, 1-3 the area, 1-4 the sub-area.
* ``sex``: :func:`~anonkit.core.hierarchy_builders.suppression` (value -> ``*``).
* ``marital-status``: ``Married``, ``Cohabiting`` -> ``Partnered``; ``Never-married`` ->
  ``Single``; ``Divorced``, ``Separated``, ``Widowed`` -> ``Formerly-married``; -> ``*``.
* ``education``: the ``level`` column of the education table, then ``Compulsory``,
  ``Secondary`` -> ``Non-tertiary`` and ``Undergraduate``, ``Graduate`` -> ``Tertiary``;
  -> ``*``.
* ``occupation``: the ``group`` column of the occupation table -> ``*``.
* ``workclass``: the ``sector`` column of the workclass table -> ``*``.

Generative model
----------------
:mod:`anonkit.datasets.synthetic_model` documents the model step by step, with its
parameter tables and where the signal lives: sex, age, a zip code of region, area and
sub-area digits, then marital status given age, education capped by age, occupation given
education, workclass and hours per week given occupation, sex and age, and last the income
from a log-odds that adds effects of every column at fine and coarse levels. About 28 % of
the records are ``>50K``; the Bayes classifier (:func:`synthetic_probability`) reaches
about 0.867 accuracy for ``n = 50,000``, ``seed = 0``, against 0.718 for the majority
class.

Examples
--------
>>> frame, hierarchies = load_synthetic(n=1000, seed=1)
>>> frame.shape, frame.columns[-1]
((1000, 9), 'income')
>>> hierarchies["zip"].generalize(frame["zip"][0], 4) == frame["zip"][0][0] + "****"
True
"""

from __future__ import annotations

import numbers
from functools import cache
from typing import Final

import numpy as np
import polars as pl

from anonkit._arrays import FloatArray, IntArray
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.hierarchy_builders import intervals, masking, suppression
from anonkit.datasets.synthetic_model import (
    AGE_BETA,
    AGE_BUMP,
    AGE_MIN,
    AGE_SPAN,
    AREA_CODES,
    AREA_P,
    BETA_0,
    BETA_EDUCATION,
    BETA_MARITAL,
    BETA_OCCUPATION,
    BETA_SEX,
    BETA_WORKCLASS,
    DELTA,
    EDUCATION,
    EDUCATION_CAP,
    EDUCATION_LEVEL,
    EDUCATION_P,
    HOURS_CAP,
    HOURS_MAX,
    HOURS_MIN,
    HOURS_SD,
    HOURS_SHIFT,
    HOURS_SLOPE,
    LOCAL_G,
    LOCAL_J,
    MARITAL,
    MARITAL_BAND_EDGES,
    MARITAL_GROUP,
    MARITAL_P,
    N_LOCAL,
    NU,
    OCCUPATION,
    OCCUPATION_GROUPS,
    OCCUPATION_P,
    OCCUPATION_SKILL,
    P_FORTY_HOURS,
    P_MALE,
    REGION_P,
    RHO,
    SEX,
    SKILL_SLOPE,
    WORKCLASS,
    WORKCLASS_P,
    WORKCLASS_SECTOR,
)
from anonkit.exceptions import ParameterError, UnknownColumnError, ValuesNotInHierarchyError

__all__ = [
    "SYNTHETIC_COLUMNS",
    "SYNTHETIC_NUMERIC",
    "SYNTHETIC_QUASI_IDENTIFIERS",
    "SYNTHETIC_TARGET",
    "load_synthetic",
    "synthetic_hierarchies",
    "synthetic_probability",
]


#: The quasi-identifiers, in column order.
SYNTHETIC_QUASI_IDENTIFIERS: Final = (
    "age",
    "sex",
    "zip",
    "marital-status",
    "education",
    "occupation",
    "workclass",
    "hours-per-week",
)
#: Quasi-identifiers held as integers (Mondrian ``numeric=``, microaggregation columns).
SYNTHETIC_NUMERIC: Final = ("age", "hours-per-week")
#: The binary target: ``<=50K`` or ``>50K``.
SYNTHETIC_TARGET: Final = "income"
#: Every column, in order.
SYNTHETIC_COLUMNS: Final = (*SYNTHETIC_QUASI_IDENTIFIERS, SYNTHETIC_TARGET)
#: Labels of the target, negative first.
INCOME_LABELS: Final = ("<=50K", ">50K")

OWNER = "load_synthetic"


# ------------------------------------------------------------------------ the domain
def _zip_codes() -> tuple[str, ...]:
    """All 288 zip codes, ordered by region, area and local zip."""
    return tuple(
        f"{r + 1}{AREA_CODES[a]}{LOCAL_G[j // 4]}{LOCAL_J[j % 4]}"
        for r in range(len(REGION_P))
        for a in range(len(AREA_CODES))
        for j in range(N_LOCAL)
    )


def _grouped(name: str, leaves: tuple[str, ...], *parents: tuple[str, ...]) -> Hierarchy:
    return Hierarchy(
        [[leaf, *(p[i] for p in parents), "*"] for i, leaf in enumerate(leaves)], name=name
    )


@cache
def _hierarchies() -> tuple[tuple[str, Hierarchy], ...]:
    occ_group = tuple(OCCUPATION_GROUPS[i // 3] for i in range(len(OCCUPATION)))
    tertiary = tuple("Tertiary" if i >= 4 else "Non-tertiary" for i in range(len(EDUCATION)))
    built = {
        "age": intervals(range(AGE_MIN, AGE_MIN + AGE_SPAN), [5, 10, 20], start=0, name="age"),
        "sex": suppression(SEX, name="sex"),
        "zip": masking(_zip_codes(), levels=4, name="zip"),
        "marital-status": _grouped("marital-status", MARITAL, MARITAL_GROUP),
        "education": _grouped("education", EDUCATION, EDUCATION_LEVEL, tertiary),
        "occupation": _grouped("occupation", OCCUPATION, occ_group),
        "workclass": _grouped("workclass", WORKCLASS, WORKCLASS_SECTOR),
        "hours-per-week": intervals(
            range(HOURS_MIN, HOURS_MAX + 1), [5, 10, 20], start=0, name="hours-per-week"
        ),
    }
    return tuple((c, built[c]) for c in SYNTHETIC_QUASI_IDENTIFIERS)


def synthetic_hierarchies() -> dict[str, Hierarchy]:
    """The generalization hierarchy of every quasi-identifier of :func:`load_synthetic`.

    They cover the whole domain of the generative model (every age 17 .. 90, every hour
    1 .. 99, all 288 zip codes), so any sample of any size is covered.

    Returns
    -------
    dict[str, Hierarchy]
        Keyed by column, in the order of :data:`SYNTHETIC_QUASI_IDENTIFIERS`.

    Examples
    --------
    >>> h = synthetic_hierarchies()
    >>> h["age"].rows[30]
    ('47', '[45-50[', '[40-50[', '[40-60[', '*')
    >>> h["zip"].rows[0], h["education"].height
    (('10210', '1021*', '102**', '10***', '1****', '*'), 4)
    """
    return dict(_hierarchies())


# ---------------------------------------------------------------------- the sampler
def _categorical(rng: np.random.Generator, p: FloatArray) -> IntArray:
    """One category per row of the ``(n, K)`` matrix of (unnormalized) probabilities ``p``."""
    cum = np.cumsum(p, axis=1)
    cum /= cum[:, -1:]
    u = rng.random(p.shape[0])
    out: IntArray = np.minimum((u[:, None] >= cum).sum(axis=1), p.shape[1] - 1).astype(np.int64)
    return out


def _categorical_n(rng: np.random.Generator, p: tuple[float, ...], n: int) -> IntArray:
    """``n`` draws from the shared (unnormalized) probabilities ``p``."""
    cum = np.cumsum(np.asarray(p, dtype=np.float64))
    cum /= cum[-1]
    u = rng.random(n)
    out: IntArray = np.minimum(np.searchsorted(cum, u, side="right"), len(p) - 1).astype(np.int64)
    return out


def _logit(
    age: IntArray,
    hours: IntArray,
    sex: IntArray,
    marital: IntArray,
    education: IntArray,
    occupation: IntArray,
    workclass: IntArray,
    region: IntArray,
    area: IntArray,
    subarea: IntArray,
) -> FloatArray:
    """The log-odds ``eta`` of step 9 of the model (region 0-based here)."""
    height, centre, width = AGE_BUMP
    bump = height * np.exp(-(((age - centre) / width) ** 2))
    slope = HOURS_SLOPE * (np.minimum(hours, HOURS_CAP) - 40)
    r1 = region + 1  # the region digit
    eta: FloatArray = (
        BETA_0
        + bump
        + slope
        + np.asarray(BETA_SEX)[sex]
        + np.asarray(BETA_MARITAL)[marital]
        + np.asarray(BETA_EDUCATION)[education]
        + np.asarray(BETA_OCCUPATION)[occupation]
        + np.asarray(BETA_WORKCLASS)[workclass]
        + np.asarray(RHO)[region]
        + np.asarray(DELTA)[(area + r1) % len(DELTA)]
        + np.asarray(NU)[(subarea + area + r1) % len(NU)]
    )
    return eta


def _check_int(value: object, parameter: str, minimum: int) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < minimum:
        raise ParameterError(parameter, OWNER, f"an int >= {minimum}", value)
    return int(value)


def _text(labels: tuple[str, ...], codes: IntArray, name: str) -> pl.Series:
    return pl.Series(name, np.asarray(labels)[codes], dtype=pl.String)


def load_synthetic(n: int = 50_000, seed: int = 0) -> tuple[pl.DataFrame, dict[str, Hierarchy]]:
    """Draw a census-like table from the generative model of this module.

    Parameters
    ----------
    n
        Number of records, an int >= 1.
    seed
        Seed of :func:`numpy.random.default_rng`, an int >= 0. The same ``(n, seed)``
        always gives the same table.

    Returns
    -------
    frame : polars.DataFrame
        The columns of :data:`SYNTHETIC_COLUMNS`: ``age`` and ``hours-per-week`` as Int64,
        the others as String; no missing values.
    hierarchies : dict[str, Hierarchy]
        :func:`synthetic_hierarchies`, one per quasi-identifier.

    Raises
    ------
    ParameterError
        If ``n`` or ``seed`` is not a non-negative int (``n`` must be positive).

    Examples
    --------
    >>> frame, hierarchies = load_synthetic(n=5, seed=0)
    >>> frame.schema["age"], frame.schema["zip"], sorted(hierarchies)[:3]
    (Int64, String, ['age', 'education', 'hours-per-week'])
    """
    size = _check_int(n, "n", 1)
    rng = np.random.default_rng(_check_int(seed, "seed", 0))
    # 1. sex, 2. age
    sex = (rng.random(size) < P_MALE).astype(np.int64)
    age = AGE_MIN + np.floor(AGE_SPAN * rng.beta(*AGE_BETA, size)).astype(np.int64)
    age = np.minimum(age, AGE_MIN + AGE_SPAN - 1)  # B < 1 almost surely; guard anyway
    # 3. zip: region, area, local zip
    region = _categorical_n(rng, REGION_P, size)
    area = _categorical_n(rng, AREA_P, size)
    local = _categorical_n(rng, tuple(1.0 / (j + 2) for j in range(N_LOCAL)), size)
    subarea = local // len(LOCAL_J)
    zip_code = (region * len(AREA_CODES) + area) * N_LOCAL + local
    # 4. marital status given the age band
    band = np.searchsorted(np.asarray(MARITAL_BAND_EDGES), age, side="right")
    marital = _categorical(rng, np.asarray(MARITAL_P, dtype=np.float64)[band])
    # 5. education, capped by age
    education = _categorical_n(rng, EDUCATION_P, size)
    for oldest, highest in EDUCATION_CAP:
        education = np.where(age <= oldest, np.minimum(education, highest), education)
    # 6. occupation given education
    weights = np.asarray(OCCUPATION_P) * np.exp(
        SKILL_SLOPE * (education[:, None] - 4) * np.asarray(OCCUPATION_SKILL)[None, :]
    )
    occupation = _categorical(rng, weights)
    # 7. workclass
    workclass = _categorical_n(rng, WORKCLASS_P, size)
    # 8. hours per week
    forty = rng.random(size) < P_FORTY_HOURS
    z = rng.standard_normal(size)
    mu = (
        40.0
        + np.asarray(HOURS_SHIFT)[occupation // 3]
        - 5.0 * (sex == 0)
        - 14.0 * (age >= 65)
        - 8.0 * (age <= 21)
    )
    spread = np.clip(np.rint(mu + HOURS_SD * z), HOURS_MIN, HOURS_MAX).astype(np.int64)
    hours = np.where(forty, 40, spread).astype(np.int64)
    # 9. income
    eta = _logit(age, hours, sex, marital, education, occupation, workclass, region, area, subarea)
    income = (rng.random(size) < 1.0 / (1.0 + np.exp(-eta))).astype(np.int64)

    frame = pl.DataFrame(
        [
            pl.Series("age", age, dtype=pl.Int64),
            _text(SEX, sex, "sex"),
            _text(_zip_codes(), zip_code, "zip"),
            _text(MARITAL, marital, "marital-status"),
            _text(EDUCATION, education, "education"),
            _text(OCCUPATION, occupation, "occupation"),
            _text(WORKCLASS, workclass, "workclass"),
            pl.Series("hours-per-week", hours, dtype=pl.Int64),
            _text(INCOME_LABELS, income, SYNTHETIC_TARGET),
        ]
    )
    return frame, synthetic_hierarchies()


# ------------------------------------------------------------------- true probability
def _codes(frame: pl.DataFrame, column: str, labels: tuple[str, ...]) -> IntArray:
    text = frame[column].cast(pl.String)
    codes = text.replace_strict(
        list(labels), list(range(len(labels))), default=-1, return_dtype=pl.Int64
    )
    if (codes < 0).any():
        missing = text.filter(codes < 0).unique(maintain_order=True)
        raise ValuesNotInHierarchyError(column, missing.head(10).to_list(), missing.len())
    out: IntArray = codes.to_numpy().astype(np.int64)
    return out


def _numbers(frame: pl.DataFrame, column: str, low: int, high: int) -> IntArray:
    values = frame[column].cast(pl.Int64, strict=False)
    bad = values.is_null() | (values < low) | (values > high)
    if bad.any():
        shown = frame[column].filter(bad).cast(pl.String).unique(maintain_order=True)
        raise ValuesNotInHierarchyError(column, shown.head(10).to_list(), shown.len())
    out: IntArray = values.to_numpy().astype(np.int64)
    return out


def synthetic_probability(frame: pl.DataFrame) -> FloatArray:
    """The model's probability that ``income`` is ``>50K``, record by record.

    Computes ``sigmoid(eta)`` of step 9 of :mod:`anonkit.datasets.synthetic_model` from the
    quasi-identifiers of ``frame`` (original values, as :func:`load_synthetic` writes them).
    The accuracy of the Bayes classifier on a sample is ``mean(max(p, 1 - p))``, the ceiling
    no classifier can beat in expectation.

    Parameters
    ----------
    frame
        A polars frame holding the columns of :data:`SYNTHETIC_QUASI_IDENTIFIERS`.

    Returns
    -------
    numpy.ndarray
        Float64 probabilities, one per row.

    Raises
    ------
    UnknownColumnError
        If a quasi-identifier is missing.
    ValuesNotInHierarchyError
        If a value is outside the model's domain.

    Examples
    --------
    >>> frame, _ = load_synthetic(n=2000, seed=0)
    >>> p = synthetic_probability(frame)
    >>> bool(abs(p.mean() - (frame["income"] == ">50K").mean()) < 0.05)
    True
    """
    missing = [c for c in SYNTHETIC_QUASI_IDENTIFIERS if c not in frame.columns]
    if missing:
        raise UnknownColumnError(missing, frame.columns)
    zips = _codes(frame, "zip", _zip_codes())
    local = zips % N_LOCAL
    eta = _logit(
        _numbers(frame, "age", AGE_MIN, AGE_MIN + AGE_SPAN - 1),
        _numbers(frame, "hours-per-week", HOURS_MIN, HOURS_MAX),
        _codes(frame, "sex", SEX),
        _codes(frame, "marital-status", MARITAL),
        _codes(frame, "education", EDUCATION),
        _codes(frame, "occupation", OCCUPATION),
        _codes(frame, "workclass", WORKCLASS),
        zips // (N_LOCAL * len(AREA_CODES)),
        (zips // N_LOCAL) % len(AREA_CODES),
        local // len(LOCAL_J),
    )
    out: FloatArray = 1.0 / (1.0 + np.exp(-eta))
    return out
