"""The engine's two type aliases, named once: a float64 array and a plane's box."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["Array", "Bounds"]

#: A float64 NumPy array (points, labels as ±1, multipliers, Gram matrices).
Array = NDArray[np.float64]
#: A window of the plane: (x_min, x_max, y_min, y_max).
Bounds = tuple[float, float, float, float]
