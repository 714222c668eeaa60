r"""The generative model of :func:`anonkit.datasets.synthetic.load_synthetic`: its steps and
parameters.

The module docstring documents the model and its parameter tables; the constants below are
the same numbers, in the order of the tables (a test checks that they agree).

Steps
-----
Each step is one vectorized draw of ``n`` values, in this order. A categorical draw with
probabilities ``p`` takes ``u = rng.random(n)`` and returns, per record, the first
category whose cumulative probability exceeds ``u``.

1. **sex**: ``Male`` when ``u < 0.5`` (``u = rng.random(n)``), else ``Female``.
2. **age** = ``17 + floor(74 B)``, ``B = rng.beta(1.5, 2.8, n)``: 17 .. 90, mean about 42.
3. **zip**, three categorical draws:

   - region ``r`` = 1 .. 6 with probabilities 0.25, 0.20, 0.18, 0.15, 0.12, 0.10;
   - area ``a`` = 0 .. 3 within the region with probabilities 0.4, 0.3, 0.2, 0.1; area
     ``a`` has the two-digit code ``02``, ``07``, ``41``, ``46`` (areas 0, 1 form the
     district ``r0``, areas 2, 3 the district ``r4``);
   - local zip ``j`` = 0 .. 11 within the area with probability proportional to
     ``1 / (j + 2)``; its sub-area is ``g = j // 4``.

   The zip code is the digits ``r``, the area code, ``G[g]``, ``J[j mod 4]`` with ``G =
   (1, 4, 7)`` and ``J = (0, 3, 5, 8)``: ``10210`` is region 1, area 0, sub-area 0, local
   zip 0. 6 regions x 4 areas x 12 = 288 codes.
4. **marital-status**, a categorical draw whose probabilities depend on the age band:

   ========  ====  ====  ====  ====  ====  ====
   age       Mar   Coh   Nev   Div   Sep   Wid
   ========  ====  ====  ====  ====  ====  ====
   17 - 24   0.05  0.10  0.83  0.01  0.01  0.00
   25 - 34   0.40  0.15  0.38  0.04  0.03  0.00
   35 - 49   0.58  0.08  0.16  0.12  0.05  0.01
   50 - 64   0.60  0.05  0.08  0.18  0.04  0.05
   65 - 90   0.52  0.03  0.05  0.14  0.02  0.24
   ========  ====  ====  ====  ====  ====  ====

   (``Married``, ``Cohabiting``, ``Never-married``, ``Divorced``, ``Separated``,
   ``Widowed``: the order of ``beta_marital`` below.)
5. **education** ``e`` (index 0 .. 9 in the order of the education table) from the shares
   ``pi_e``, then capped by age: ``e = min(e, 4)`` (Some-college) when age <= 21 and
   ``e = min(e, 6)`` (Bachelors) when 22 <= age <= 24.
6. **occupation** ``o`` given education: probability proportional to
   ``pi_o exp(0.45 (e - 4) s_o)`` with the base shares ``pi_o`` and skill scores ``s_o``
   of the occupation table.
7. **workclass** from its shares ``pi_w``, independent of the rest.
8. **hours-per-week**: ``u = rng.random(n)`` then ``z = rng.standard_normal(n)``; exactly
   40 when ``u < 0.4``, otherwise ``round(mu + 10 z)`` clipped to 1 .. 99 with ``mu = 40 +
   h_G - 5 [Female] - 14 [age >= 65] - 8 [age <= 21]``, where ``h_G`` is the shift of the
   occupation's group: +4, -2, -5, +3 for the groups in table order.
9. **income** = ``>50K`` when ``u < sigmoid(eta)`` (``u = rng.random(n)``) with the
   log-odds

   .. math::

      \eta = \beta_0 + 3.3 \exp(-((\mathrm{age} - 50) / 12)^2)
             + 0.08 (\min(\mathrm{hours}, 60) - 40)
             + \beta_{sex} + \beta_{marital} + \beta_e + \beta_o + \beta_w
             + \rho_r + \delta_{r,a} + \nu_{r,a,g}

   where ``beta_0 = -4.0``; ``beta_sex`` = 0.4 for ``Male``, 0 for ``Female``;
   ``beta_marital`` = 1.6, 0.4, -0.8, -0.2, -0.6, -0.3 in the order of step 4; ``beta_e``,
   ``beta_o``, ``beta_w`` from the tables below; the region effect ``rho_r`` = 0.9, 0.5,
   0.0, -0.2, -0.5, -0.8 for ``r`` = 1 .. 6; the area effect ``delta_{r,a} = D[(a + r) mod
   4]`` with ``D = (-0.9, -0.3, 0.3, 0.9)``; the sub-area effect ``nu_{r,a,g} = N[(g + a +
   r) mod 3]`` with ``N = (-0.5, 0.0, 0.5)``. About 28 % of the records are ``>50K``.

=================  ================  =====  ======
education          level             pi_e   beta_e
=================  ================  =====  ======
Primary            Compulsory        0.04   -1.8
Lower-secondary    Compulsory        0.08   -1.4
Upper-secondary    Secondary         0.26   -0.6
Vocational         Secondary         0.12   -0.2
Some-college       Undergraduate     0.16    0.0
Associate          Undergraduate     0.08    0.3
Bachelors          Undergraduate     0.16    1.2
Masters            Graduate          0.07    1.8
Professional       Graduate          0.015   2.7
Doctorate          Graduate          0.015   2.2
=================  ================  =====  ======

==================  =======================  =====  =====  ======
occupation          group                    pi_o   s_o    beta_o
==================  =======================  =====  =====  ======
Manager             Management-professional  0.08    1.0    1.8
Professional        Management-professional  0.10    1.5    1.4
Technician          Management-professional  0.07    0.5    0.4
Clerical            Office-sales             0.11    0.0   -0.4
Sales               Office-sales             0.10    0.0    0.6
Customer-service    Office-sales             0.07   -0.3   -1.0
Food-service        Service                  0.08   -1.0   -2.1
Personal-care       Service                  0.06   -0.8   -1.5
Protective-service  Service                  0.04   -0.2    0.6
Construction        Manual                   0.10   -0.6    0.2
Production          Manual                   0.11   -0.7   -0.6
Transport           Manual                   0.08   -0.8   -0.3
==================  =======================  =====  =====  ======

==================  ================  =====  ======
workclass           sector            pi_w   beta_w
==================  ================  =====  ======
Private             Private-sector    0.70    0.0
Self-emp-not-inc    Self-employed     0.07   -0.6
Self-emp-inc        Self-employed     0.04    1.4
Federal-gov         Government        0.04    0.8
State-gov           Government        0.06    0.0
Local-gov           Government        0.09   -0.2
==================  ================  =====  ======

Where the signal lives
----------------------
*Fine-grained* (lost one or two levels up): the spread of ``beta`` inside a group
(occupation -2.1 .. 0.6 inside ``Service``; education 0.0 .. 1.2 inside
``Undergraduate``; marital status 1.6 vs 0.4 inside ``Partnered``; ``Self-emp-inc`` vs
``Self-emp-not-inc``), the sub-area effect ``nu`` (lost at ``102**``) and the area effect
``delta`` (lost at ``10***``, partly: a district averages two areas). *Coarse* (kept until
suppression): the group means of ``beta``, the region effect ``rho`` (kept at ``1****``),
the age bump (24 years wide: kept by 5- and 10-year bins, blurred by 20-year ones), the
hours slope and ``beta_sex``. :func:`synthetic_probability` returns the model's
``P(income = >50K)`` for the records of any table with these columns, hence the accuracy of
the Bayes classifier, ``mean(max(p, 1 - p))``: about 0.867 for ``n = 50,000``, ``seed =
0``, against 0.718 for the majority class.
"""

from __future__ import annotations

AGE_MIN, AGE_SPAN = 17, 74  # ages 17 .. 90
AGE_BETA = (1.5, 2.8)
HOURS_MIN, HOURS_MAX = 1, 99

SEX = ("Female", "Male")
P_MALE = 0.5
BETA_SEX = (0.0, 0.4)

REGION_P = (0.25, 0.20, 0.18, 0.15, 0.12, 0.10)  # regions 1 .. 6
AREA_P = (0.4, 0.3, 0.2, 0.1)
AREA_CODES = ("02", "07", "41", "46")
LOCAL_G = ("1", "4", "7")
LOCAL_J = ("0", "3", "5", "8")
N_LOCAL = 12
RHO = (0.9, 0.5, 0.0, -0.2, -0.5, -0.8)
DELTA = (-0.9, -0.3, 0.3, 0.9)
NU = (-0.5, 0.0, 0.5)

MARITAL = ("Married", "Cohabiting", "Never-married", "Divorced", "Separated", "Widowed")
MARITAL_GROUP = (
    "Partnered",
    "Partnered",
    "Single",
    "Formerly-married",
    "Formerly-married",
    "Formerly-married",
)
MARITAL_BAND_EDGES = (25, 35, 50, 65)  # bands 17-24, 25-34, 35-49, 50-64, 65-90
MARITAL_P = (
    (0.05, 0.10, 0.83, 0.01, 0.01, 0.00),
    (0.40, 0.15, 0.38, 0.04, 0.03, 0.00),
    (0.58, 0.08, 0.16, 0.12, 0.05, 0.01),
    (0.60, 0.05, 0.08, 0.18, 0.04, 0.05),
    (0.52, 0.03, 0.05, 0.14, 0.02, 0.24),
)
BETA_MARITAL = (1.6, 0.4, -0.8, -0.2, -0.6, -0.3)

EDUCATION = (
    "Primary",
    "Lower-secondary",
    "Upper-secondary",
    "Vocational",
    "Some-college",
    "Associate",
    "Bachelors",
    "Masters",
    "Professional",
    "Doctorate",
)
EDUCATION_LEVEL = (
    "Compulsory",
    "Compulsory",
    "Secondary",
    "Secondary",
    "Undergraduate",
    "Undergraduate",
    "Undergraduate",
    "Graduate",
    "Graduate",
    "Graduate",
)
EDUCATION_P = (0.04, 0.08, 0.26, 0.12, 0.16, 0.08, 0.16, 0.07, 0.015, 0.015)
BETA_EDUCATION = (-1.8, -1.4, -0.6, -0.2, 0.0, 0.3, 1.2, 1.8, 2.7, 2.2)
EDUCATION_CAP = ((21, 4), (24, 6))  # (oldest age, highest education index)

OCCUPATION = (
    "Manager",
    "Professional",
    "Technician",
    "Clerical",
    "Sales",
    "Customer-service",
    "Food-service",
    "Personal-care",
    "Protective-service",
    "Construction",
    "Production",
    "Transport",
)
OCCUPATION_GROUPS = ("Management-professional", "Office-sales", "Service", "Manual")
OCCUPATION_P = (0.08, 0.10, 0.07, 0.11, 0.10, 0.07, 0.08, 0.06, 0.04, 0.10, 0.11, 0.08)
OCCUPATION_SKILL = (1.0, 1.5, 0.5, 0.0, 0.0, -0.3, -1.0, -0.8, -0.2, -0.6, -0.7, -0.8)
BETA_OCCUPATION = (1.8, 1.4, 0.4, -0.4, 0.6, -1.0, -2.1, -1.5, 0.6, 0.2, -0.6, -0.3)
SKILL_SLOPE = 0.45
HOURS_SHIFT = (4.0, -2.0, -5.0, 3.0)  # per occupation group

WORKCLASS = (
    "Private",
    "Self-emp-not-inc",
    "Self-emp-inc",
    "Federal-gov",
    "State-gov",
    "Local-gov",
)
WORKCLASS_SECTOR = (
    "Private-sector",
    "Self-employed",
    "Self-employed",
    "Government",
    "Government",
    "Government",
)
WORKCLASS_P = (0.70, 0.07, 0.04, 0.04, 0.06, 0.09)
BETA_WORKCLASS = (0.0, -0.6, 1.4, 0.8, 0.0, -0.2)

P_FORTY_HOURS = 0.4
HOURS_SD = 10.0
BETA_0 = -4.0
AGE_BUMP = (3.3, 50.0, 12.0)  # height, centre, width
HOURS_SLOPE, HOURS_CAP = 0.08, 60
