"""Reproductions of published experiments, run as commands and cached as JSON.

Each module exposes ``run(...) -> dict`` (JSON-serialisable), ``load(path) -> dict``
for the pages, and a ``main()`` for ``python -m svmlab.experiments.<name>``; the
cached results live in ``svmlab/experiments/results/``.
"""
