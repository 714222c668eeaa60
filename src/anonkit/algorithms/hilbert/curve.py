"""The d-dimensional Hilbert curve, vectorized: grid points to their position on the curve.

Skilling's transform (J. Skilling, Programming the Hilbert curve, AIP Conf. Proc. 707,
2004) turns the coordinates of a point of the ``2**bits``-per-side grid into the
"transposed" Hilbert index in place: inverse undo of the excess work, then Gray encoding.
Here it runs on all points at once (one numpy operation per bit and dimension), and the
transposed index is packed into 64-bit words, most significant first, so that
:func:`hilbert_order` sorts points along the curve with :func:`numpy.lexsort` whatever
``bits * d`` is.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from anonkit._arrays import IntArray
from anonkit._validation import check_int
from anonkit.exceptions import ParameterError

UIntArray = npt.NDArray[np.uint64]

__all__ = ["bits_for", "hilbert_keys", "hilbert_order"]


def bits_for(sizes: npt.ArrayLike) -> int:
    """Bits per coordinate of a grid holding ``sizes[j]`` values on axis ``j``.

    Examples
    --------
    >>> bits_for([1, 2]), bits_for([5, 3]), bits_for([16])
    (1, 3, 4)
    """
    top = int(np.max(np.asarray(sizes, dtype=np.int64), initial=1))
    return max(1, int(top - 1).bit_length())


def hilbert_keys(coords: npt.ArrayLike, bits: int) -> UIntArray:
    """The Hilbert index of each point, as ``(n, words)`` uint64, most significant first.

    Parameters
    ----------
    coords
        ``(n, d)`` non-negative integer coordinates, each below ``2**bits``.
    bits
        Bits per coordinate (the curve's order).

    Returns
    -------
    numpy.ndarray
        ``(n, ceil(bits * d / 64))`` words; comparing rows word by word orders the points
        along the curve.

    Examples
    --------
    >>> hilbert_keys([[0, 0], [0, 1], [1, 1], [1, 0]], 1).ravel().tolist()
    [0, 1, 2, 3]
    """
    check_int(bits, "bits", "hilbert_keys", low=1, high=64)
    points = np.asarray(coords)
    if points.ndim != 2:
        raise ParameterError(
            "coords", "hilbert_keys", "a 2-D array (points x dimensions)", points.ndim
        )
    if points.size and (int(points.min()) < 0 or int(points.max()) >= 1 << bits):
        raise ParameterError(
            "coords",
            "hilbert_keys",
            f"integers in [0, {(1 << bits) - 1}] for bits={bits}",
            "out of range",
        )
    n, d = points.shape
    x = [points[:, i].astype(np.uint64) for i in range(d)]
    top = 1 << (bits - 1)
    # inverse undo (Skilling): from the most significant bit down
    q = top
    while q > 1:
        p = np.uint64(q - 1)
        uq = np.uint64(q)
        for i in range(d):
            high = (x[i] & uq) != 0
            if i == 0:
                x[0] = np.where(high, x[0] ^ p, x[0])
                continue
            t = np.where(high, np.uint64(0), (x[0] ^ x[i]) & p)
            x[0] = np.where(high, x[0] ^ p, x[0] ^ t)
            x[i] = x[i] ^ t
        q >>= 1
    # Gray encode
    for i in range(1, d):
        x[i] = x[i] ^ x[i - 1]
    t = np.zeros(n, dtype=np.uint64)
    q = top
    while q > 1:
        t = np.where((x[d - 1] & np.uint64(q)) != 0, t ^ np.uint64(q - 1), t)
        q >>= 1
    x = [xi ^ t for xi in x]
    # interleave: bit b of x[0], x[1], ..., x[d-1], from b = bits - 1 down to 0
    total = bits * d
    n_words = max(1, -(-total // 64))
    words = np.zeros((n, n_words), dtype=np.uint64)
    position = 0
    for b in range(bits - 1, -1, -1):
        for i in range(d):
            bit = (x[i] >> np.uint64(b)) & np.uint64(1)
            # position counts from the most significant bit of the whole index
            word, offset = divmod(position + n_words * 64 - total, 64)
            words[:, word] |= bit << np.uint64(63 - offset)
            position += 1
    return words


def hilbert_order(coords: npt.ArrayLike, bits: int | None = None) -> IntArray:
    """Indices that sort the points along the Hilbert curve (stable: equal points keep
    their order).

    ``bits`` defaults to the fewest that hold every coordinate.

    Examples
    --------
    >>> hilbert_order([[1, 0], [0, 0], [1, 1], [0, 1]]).tolist()
    [1, 3, 2, 0]
    """
    points = np.asarray(coords)
    if bits is None:
        bits = bits_for(points.max(axis=0) + 1 if points.size else [1])
    words = hilbert_keys(points, bits)
    order: IntArray = np.lexsort(tuple(words[:, w] for w in range(words.shape[1] - 1, -1, -1)))
    return order.astype(np.int64)
