"""BangA (Anjum et al. 2017), as anonkit reads it: a BANG-file grid over the
quasi-identifiers, then density-ordered merging of its blocks into clusters of k or more
(see ``docs/algorithms/banga.md`` for what the paper leaves open)."""

from __future__ import annotations

from anonkit.algorithms.banga.cluster import merge_blocks
from anonkit.algorithms.banga.grid import Blocks, bang_blocks

__all__ = ["Blocks", "bang_blocks", "merge_blocks"]
