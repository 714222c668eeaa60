"""The compiled packed keys (issue 19): packing, counting and unpacking give numpy's
arrays, value for value."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.engines import counting, polars_engine
from anonkit.engines.counting import KEY_SHIFT, packed_digits, unpack_block


def _both(monkeypatch: pytest.MonkeyPatch, run):  # type: ignore[no-untyped-def]
    """``run()`` on numpy's path, then on the compiled one."""
    out = []
    for compiled in (False, True):
        monkeypatch.setattr(polars_engine, "compiled_ready", lambda on=compiled: on)
        monkeypatch.setattr(counting, "compiled_ready", lambda on=compiled: on)
        out.append(run())
    return out


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 300),
    radices=st.lists(st.integers(1, 40), min_size=1, max_size=6),
    seed=st.integers(0, 10_000),
)
def test_compiled_keys_equal_numpy(n: int, radices: list[int], seed: int) -> None:
    rng = np.random.default_rng(seed)
    # codes from MISSING_CODE (-KEY_SHIFT) up, below each radix
    coded = [pl.Series(rng.integers(-KEY_SHIFT, r, n), dtype=pl.Int64) for r in radices]
    digits = packed_digits([r + KEY_SHIFT for r in radices])
    assert digits is not None
    with pytest.MonkeyPatch.context() as patch:
        (keys, counts), (keys_c, counts_c) = _both(
            patch, lambda: polars_engine._packed_key_counts(coded, digits)
        )
        block, block_c = _both(patch, lambda: unpack_block(keys, digits))
    assert np.array_equal(keys, keys_c) and np.array_equal(counts, counts_c)
    assert keys.dtype == keys_c.dtype == counts_c.dtype == np.int64
    assert np.array_equal(block, block_c) and block_c.shape == (len(radices), keys.shape[0])
    # the keys hold the records' codes: unpacked, they are the distinct rows
    rows = {tuple(int(c[i]) for c in coded) for i in range(n)}
    assert {tuple(int(v) for v in col) for col in block_c.T} == rows
    assert int(counts_c.sum()) == n
