"""Differentially private anonymization.

* :mod:`.parameters`: ``β``, ``k`` and ``δ`` of sampling followed by k-anonymization
  (Li, Qardaji, Su 2012), as SafePub computes them;
* :mod:`.exponential`: the exponential mechanism (McSherry, Talwar 2007);
* :mod:`.scores`: SafePub's score functions with sensitivity 1;
* :mod:`.safepub`: SafePub's sampling and search over the generalization lattice
  (Bild, Kuhn, Prasser 2018);
* :mod:`.k_epsilon`: the Laplace noise of (k, ε)-anonymity (Holohan et al. 2017).
"""

from anonkit.algorithms.dp.exponential import exponential_choice, exponential_probabilities
from anonkit.algorithms.dp.parameters import delta_for, k_for, sampling_probability
from anonkit.algorithms.dp.safepub import SafePubSearch, safepub_search, sample_mask
from anonkit.algorithms.dp.scores import SCORES, NodeClasses, get_score

__all__ = [
    "SCORES",
    "NodeClasses",
    "SafePubSearch",
    "delta_for",
    "exponential_choice",
    "exponential_probabilities",
    "get_score",
    "k_for",
    "safepub_search",
    "sample_mask",
    "sampling_probability",
]
