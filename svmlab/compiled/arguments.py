"""The arrays a compiled function only reads go in read-only: one specialisation.

numba compiles a function once per argument *type*, and a read-only array is a
type of its own. The Explore page hands the solvers its cached Gram matrix
read-only (shared between sessions), the regularized bias and every other page a
fresh, writable ``K + 1`` or ``K``: so the SMO loop, with its helpers, was
compiled twice (about 10 s each on two cores, issue 28), and a warm-up that
fitted with one kind of matrix left the other to the first visitor who asked.
Every call site of a compiled function passes the arrays it only reads through
:func:`read_only`, so both kinds meet one specialisation (a compiled function
that wrote into such an array would not compile at all: the guard comes free).
"""

from __future__ import annotations

from numpy.typing import NDArray

__all__ = ["read_only"]


def read_only(array: NDArray) -> NDArray:
    """``array`` itself if it is read-only, else a read-only view of it (the
    caller's array stays writable; no copy)."""
    if not array.flags.writeable:
        return array
    view = array.view()
    view.setflags(write=False)
    return view
