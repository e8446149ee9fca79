"""Room codes: short enough to type, too many to guess.

A code is :data:`LENGTH` characters of :data:`ALPHABET` (29 letters and digits
without the look-alikes 0/O, 1/I/L, 5/S): 29⁶ ≈ 5.9 × 10⁸ codes. Guessing is
also limited (:mod:`svmlab.ui.hall.limits`): ten wrong codes per visitor in ten
minutes and :data:`~svmlab.ui.hall.limits.WRONG_CODES_PER_SERVER` a minute for
the whole server, so a script that forgets its cookie between guesses still
makes at most 200 guesses a minute: with 50 rooms open, finding any of them
takes about 59,000 minutes (41 days) on average, longer than a room lives
(:data:`~svmlab.ui.hall.limits.ROOM_SECONDS`). The old four-letter codes
(707,281) fell in about 14,000 unlimited guesses.
"""

from __future__ import annotations

import secrets

__all__ = ["ALPHABET", "LENGTH", "new_code", "normalize", "shown"]

ALPHABET = "ABCDEFGHJKMNPQRTUVWXYZ2346789"
LENGTH = 6
#: The longest text read as a code at all (spaces and dashes around it allowed).
MAX_TYPED = 32


def new_code() -> str:
    """A random code (``secrets``: not predictable from earlier codes)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def normalize(typed: object) -> str | None:
    """The code a student typed (any case, spaces or dashes between groups),
    or None when it cannot be a code at all (wrong length or characters: no
    room is looked up, and nothing of it is echoed)."""
    text = str(typed)
    if len(text) > MAX_TYPED:
        return None
    code = "".join(ch for ch in text.upper() if ch not in " -_\t")
    if len(code) != LENGTH or any(ch not in ALPHABET for ch in code):
        return None
    return code


def shown(code: str) -> str:
    """A code as the projector shows it: two groups of three (``ABC DEF``)."""
    return f"{code[:3]} {code[3:]}"
