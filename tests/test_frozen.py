"""The read-only mappings of results and fitted estimators: read-only, dict-like,
picklable."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest

from anonkit._frozen import FrozenDict


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.__setitem__("a", 2),
        lambda d: d.__delitem__("a"),
        lambda d: d.clear(),
        lambda d: d.pop("a"),
        lambda d: d.popitem(),
        lambda d: d.setdefault("b", 1),
        lambda d: d.update(b=1),
        lambda d: d.__ior__({"b": 1}),
    ],
)
def test_every_change_is_refused(change: Any) -> None:
    frozen = FrozenDict({"a": 1})
    with pytest.raises(TypeError, match="read-only"):
        change(frozen)
    assert frozen == {"a": 1}


def test_reads_like_a_dict_and_survives_pickle_and_copies() -> None:
    nested = FrozenDict({"levels": FrozenDict({"age": 2}), "n": 3})
    assert json.loads(json.dumps(nested)) == {"levels": {"age": 2}, "n": 3}
    assert repr(nested) == "{'levels': {'age': 2}, 'n': 3}"
    assert nested | {"m": 1} == {"levels": {"age": 2}, "n": 3, "m": 1}
    for twin in (pickle.loads(pickle.dumps(nested)), copy.deepcopy(nested), copy.copy(nested)):
        assert type(twin) is FrozenDict and twin == nested
        assert type(twin["levels"]) is FrozenDict
        with pytest.raises(TypeError):
            twin["n"] = 4
