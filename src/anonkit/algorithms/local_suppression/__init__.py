"""Local suppression: blank single quasi-identifier cells until the privacy models hold.

After a global recoding some equivalence classes are still too small (or not diverse
enough). Global suppression removes their records entirely; *local* suppression (seed 002;
the ``localSuppression`` method of the R package sdcMicro) instead replaces individual
quasi-identifier cells of those records by ``*``, as few cells as it can, so that the
records fall into classes that satisfy the privacy models.

Semantics of ``*``
------------------
A suppressed cell is written ``*`` and counts as **one more literal value of its column**
when equivalence classes are formed: ``(male, *, 40)`` is in the same class as another
``(male, *, 40)`` but not as ``(male, 10115, 40)``. The release is therefore k-anonymous
(ℓ-diverse, ...) by a plain group-by over the released columns, which is how
``anonkit check`` and pycanon verify it. This is more conservative than sdcMicro, whose
frequency counts (``freqCalc``, ``kAnon`` with the default ``alpha = 1``) let a missing key
value *match every category* of its column: a record ``(male, NA, 40)`` counts towards the
frequency of every ``(male, z, 40)`` and they towards its. There fewer cells are needed,
but the guarantee holds only for an attacker who reads a blank as "could be anything",
and a plain group-by over the release does not confirm it.

Records whose quasi-identifiers are all ``*`` are *suppressed records*. By default they are
not judged, exactly as ``anonkit check`` and the full-domain algorithms treat the records
they suppress: a record with no quasi-identifier left cannot be linked through them.
With ``judge_suppressed=True`` they form one more class that must satisfy the models too.

The heuristic
-------------
Finding the fewest cells is NP-hard (Meyerson & Williams 2004), so a greedy runs in rounds
over the *distinct* rows of the table (identical records share their fate, so it works on a
frequency snapshot: quasi-identifier and sensitive codes with counts). In every round:

1. Group the rows into classes; the models name the violating classes ``V``.
2. For each class ``c`` in ``V`` and each set ``S`` of its unsuppressed attributes with at
   most ``D`` members, the *target* is ``c`` with the attributes of ``S`` set to ``*``
   (``D`` keeps the candidates within a budget: at most 256 sets per class, and 2 million
   candidates per round; nine quasi-identifiers give ``D = 4``, or 3 with more than about
   7,800 violating classes).
   Its cost is ``sum_{j in S} w_j`` per record, ``w_j`` the importance of attribute ``j``
   (default 1, so the cost counts cells).
3. A move is *solo-safe* when the target already exists as a non-violating class and the
   merged class satisfies the models. A target is *pool-safe* when the existing class plus
   every violating class that could move there satisfies them; a violating class holding
   ``*`` cells may also *stay* (cost 0) if its own class is pool-safe.
4. Every class takes its cheapest safe option (ties: fewer cells, then a pool before a
   solo move, as a pool fixes other classes too, then the larger target). Pools are then
   checked with the classes that actually chose them; a class whose pool falls short
   takes its best solo move into an existing class, else waits a round (the others have
   moved by then, so its options are clearer).
5. A class with no safe option at all loses one more cell, of its least important
   attribute (ties: the one whose target gathers the most records), and tries again in
   the next round.

Cells only ever become ``*`` and every round changes some class, so the rounds end. When
adding records to a class never breaks a model (k-anonymity, distinct ℓ-diversity), only
records of classes that violate a model in the input change, so the cell count never
exceeds ``q`` times the records in violating classes: the cost of suppressing those
records globally. (A model such as entropy ℓ-diversity can be broken by a merge; the class
that broke then moves in a later round, so records outside the violating classes may
change too.) Records whose quasi-identifiers are all ``*`` in the input never change.

When ``judge_suppressed=True`` and the class of suppressed records is the last violating
class, whole classes (of records that need not have violated anything) are added to it,
cheapest first (records times unsuppressed importance), until it satisfies the models.
That succeeds unless the whole table, as one class, violates them (for k-anonymity: fewer
than ``k`` records; for distinct ℓ-diversity: fewer than ℓ sensitive values); then
:class:`PrivacyUnattainableError` is raised.

References
----------
M. Templ, A. Kowarik, B. Meindl. Statistical disclosure control for micro-data using the R
package sdcMicro. Journal of Statistical Software 67(4), 2015 (``localSuppression``).

A. Meyerson, R. Williams. On the complexity of optimal k-anonymity. PODS 2004.

L. Sweeney. Achieving k-anonymity privacy protection using generalization and
suppression. IJUFKS 10(5), 2002.
"""

from anonkit.algorithms.local_suppression.codes import suppress_codes
from anonkit.algorithms.local_suppression.frame import suppress_cells
from anonkit.algorithms.local_suppression.result import LocalSuppressionResult, SensitiveArray

__all__ = ["LocalSuppressionResult", "SensitiveArray", "suppress_cells", "suppress_codes"]
