"""The numpy array types the package's signatures name, defined once.

Imported by every layer (it imports nothing of anonkit); a module keeps its own alias only
for an array type no other module uses.
"""

import numpy as np
import numpy.typing as npt

__all__ = ["BoolArray", "FloatArray", "IntArray"]

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
