"""The compiled code's cache and its warm-up.

- :mod:`~svmlab.compiled.cache`: numba's cache directory, named by a hash of the
  compiled sources (imported first by ``svmlab/__init__.py``, before any
  compiled module);
- :mod:`~svmlab.compiled.arguments`: arrays a compiled function only reads are
  passed read-only (one specialisation instead of two);
- :mod:`~svmlab.compiled.precompile`: every compiled function, ready ahead
  (``python -m svmlab.compiled.precompile``).
"""
