"""Full-domain (global recoding) searches over the generalization lattice."""

from __future__ import annotations

from typing import Protocol

from anonkit.algorithms.lattice.allmin import AllMin
from anonkit.algorithms.lattice.auto import Auto, choose_search
from anonkit.algorithms.lattice.datafly import Datafly
from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.exhaustive import Exhaustive
from anonkit.algorithms.lattice.flash import Flash
from anonkit.algorithms.lattice.genetic import Genetic
from anonkit.algorithms.lattice.incognito import Incognito
from anonkit.algorithms.lattice.lightning import Lightning
from anonkit.algorithms.lattice.node_result import NodeResult
from anonkit.algorithms.lattice.samarati import Samarati
from anonkit.algorithms.lattice.search import SearchResult
from anonkit.algorithms.lattice.sparse_flash import SparseFlash
from anonkit.algorithms.lattice.topdown import TopDown


class LatticeSearch(Protocol):
    """A full-domain search strategy."""

    name: str

    def search(self, evaluator: Evaluator) -> SearchResult: ...


#: Full-domain algorithms by their API/config name.
LATTICE_ALGORITHMS: dict[str, type[LatticeSearch]] = {
    "flash": Flash,
    "exhaustive": Exhaustive,
    "samarati": Samarati,
    "datafly": Datafly,
    "incognito": Incognito,
    "allmin": AllMin,
    "lightning": Lightning,
    "genetic": Genetic,
    "auto": Auto,
    "sparse_flash": SparseFlash,
    "topdown": TopDown,
}

__all__ = [
    "LATTICE_ALGORITHMS",
    "LatticeSearch",
    "AllMin",
    "Auto",
    "Datafly",
    "Evaluator",
    "Exhaustive",
    "Flash",
    "Genetic",
    "Incognito",
    "Lightning",
    "NodeResult",
    "Samarati",
    "SearchResult",
    "SparseFlash",
    "TopDown",
    "choose_search",
]
