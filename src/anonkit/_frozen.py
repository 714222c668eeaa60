"""A read-only dict that pickles: the mappings that results and fitted estimators expose.

``types.MappingProxyType`` made them read-only, but a proxy cannot be pickled or
deep-copied, so neither could a result or a fitted estimator (joblib saves models with
pickle; a study sends results between processes). :class:`FrozenDict` is a ``dict``
whose mutating methods raise ``TypeError``, as a proxy's do: reads run at dict speed, it
compares equal to a dict with the same items, ``json`` writes it as an object, and it
pickles and copies as a new :class:`FrozenDict` of the same items.
"""

from __future__ import annotations

from typing import Any, NoReturn, TypeVar

__all__ = ["FrozenDict"]

K = TypeVar("K")
V = TypeVar("V")


class FrozenDict(dict[K, V]):
    """A ``dict`` that cannot be changed after it is made.

    Examples
    --------
    >>> levels = FrozenDict({"age": 2, "zip": 1})
    >>> levels == {"age": 2, "zip": 1}, levels["age"]
    (True, 2)
    >>> levels["age"] = 3
    Traceback (most recent call last):
    ...
    TypeError: this mapping is read-only; copy it with dict(...) to change it
    >>> import pickle
    >>> pickle.loads(pickle.dumps(levels)) == levels
    True
    """

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("this mapping is read-only; copy it with dict(...) to change it")

    __setitem__ = _read_only
    __delitem__ = _read_only
    __ior__ = _read_only
    clear = _read_only
    pop = _read_only
    popitem = _read_only
    setdefault = _read_only
    update = _read_only

    def __reduce__(self) -> tuple[type[FrozenDict[K, V]], tuple[dict[K, V]]]:
        # the default for a dict subclass fills the new object through __setitem__
        return (type(self), (dict(self),))

    def __copy__(self) -> FrozenDict[K, V]:
        return self  # it cannot change: a copy would be the same

    def __repr__(self) -> str:
        return dict.__repr__(self)
