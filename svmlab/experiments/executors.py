"""Where parallel work runs: here, in local processes, or on a Dask cluster.

A model-selection sweep is a list of independent tasks (one sigma row of the
grid each: its Gram matrix once, its fits warm-started along C), and so is each
training seed of Lee's experiment. :func:`run_tasks` runs such a list

- in this process (``executor=None`` or ``1``: what the pages do by default),
- in local worker processes through joblib (``executor=n``, an int > 1 or -1),
- or on a Dask cluster (``executor="tcp://host:8786"``, a scheduler's address,
  or a ``distributed.Client``), through Dask's own futures.

Dask's futures keep the code simpler than joblib's Dask backend here: the data
every task needs (the points, the labels, the estimator) are scattered to every
worker once (``Client.scatter(..., broadcast=True)``) and each task is sent with
references to them, not with the data; results come back as they finish, in any
order, and each goes to ``on_result`` at once (the progress bar counts them).

Failures. A worker that dies loses the tasks it was running; the scheduler
reschedules them on the others by itself, and a task that still fails for a
reason other than svmlab's own typed errors (a worker killed again and again) is
submitted again up to :data:`RESUBMITS` times. An svmlab error (bad data or
parameters) is the caller's and is raised. A task that never finishes (the time
budget ran out, or it failed every time) is *missing*: its slot in
:attr:`TaskResults.results` is None and :attr:`TaskResults.missing` lists it with
the reason; a finished task is never lost, and a missing one is never a zero.
Inside :func:`svmlab.cancel_when` the wait polls the predicate, cancels what is
still queued and raises :class:`svmlab.errors.FitCancelled`.

``distributed`` is imported only when a cluster is asked for, so an install
without it works as before (the package is in ``requirements-dev.txt``; a
cluster user installs ``dask[distributed]``).
"""

from __future__ import annotations

import argparse
import os
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from svmlab.errors import ClusterError, ParameterError, SvmlabError, plain_value
from svmlab.solvers.base import Budget, check_max_seconds

__all__ = [
    "ENV_SCHEDULER",
    "RESUBMITS",
    "TaskResults",
    "add_scheduler_argument",
    "describe_executor",
    "max_processes",
    "run_tasks",
]

#: Environment variable with a Dask scheduler's address (the pages read it).
ENV_SCHEDULER = "SVMLAB_DASK_SCHEDULER"


#: Times a task that failed on the cluster (not by an svmlab error) is sent again.
RESUBMITS = 2
#: Seconds to wait for a scheduler before saying it cannot be reached.
CONNECT_SECONDS = 10.0
#: Seconds between two looks at the futures (and at the cancel predicate).
POLL_SECONDS = 0.05


def add_scheduler_argument(
    parser: argparse.ArgumentParser, work: str, otherwise: str
) -> None:
    """The ``--scheduler`` option of a command-line run (the Lee (2006)
    experiment, the benchmarks): a Dask scheduler's address, read from
    :data:`ENV_SCHEDULER` when not given; ``work`` says what runs on the
    workers, ``otherwise`` where it runs without one."""
    parser.add_argument(
        "--scheduler",
        default=os.environ.get(ENV_SCHEDULER) or None,
        help=f"a Dask scheduler's address (tcp://HOST:8786): {work} on its "
        f"workers (default: ${ENV_SCHEDULER}, else {otherwise})",
    )


@dataclass(frozen=True)
class TaskResults:
    """What :func:`run_tasks` returns.

    Attributes
    ----------
    results
        One entry per task, in task order; None for a missing task.
    missing
        Task index -> why it has no result (time budget, repeated failure).
    where
        Where the tasks ran, in words ("this process", "4 local processes",
        "the Dask cluster at tcp://...: 3 workers").
    seconds
        Wall-clock time of the whole run.
    """

    results: list[Any]
    missing: dict[int, str] = field(default_factory=dict)
    where: str = "this process"
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        return not self.missing


def _is_address(executor: object) -> bool:
    return isinstance(executor, str) and bool(executor.strip())


def _is_client(executor: object) -> bool:
    return type(executor).__name__ == "Client" and hasattr(executor, "submit")


def max_processes() -> int:
    """The most local processes :func:`run_tasks` starts: 4 per core, at least 8.

    More workers than that only share the same cores, each with its own copy of
    the data; a number far beyond it (``10**9``) made joblib raise its own
    ``ValueError`` (issue 27, item 13), so it is refused with a sentence.
    """
    return max(8, 4 * (os.cpu_count() or 1))


def check_executor(executor: object) -> None:
    """A ParameterError with a plain sentence unless ``executor`` is one of the
    accepted forms (None, a whole number of processes up to
    :func:`max_processes`, -1, an address, a Client)."""
    if executor is None or _is_address(executor) or _is_client(executor):
        return
    if isinstance(executor, int) and not isinstance(executor, bool):
        if executor > max_processes():
            raise ParameterError(
                f"executor asks for {plain_value(executor)} local processes; this "
                f"machine runs at most {max_processes()} (4 per core). Use -1 for "
                "one per core, or a Dask cluster for more."
            )
        if executor >= 1 or executor == -1:
            return
    raise ParameterError(
        "executor must be None (this process), a number of local processes "
        "(1 or more, or -1 for one per core), a Dask scheduler address such as "
        f"'tcp://host:8786', or a distributed.Client; got {plain_value(executor)}."
    )


def describe_executor(executor: object) -> str:
    """Where tasks given this ``executor`` run, in words (no connection made)."""
    check_executor(executor)
    if executor is None or executor == 1:
        return "this process"
    if isinstance(executor, int):
        return (
            "one local process per core"
            if executor == -1
            else (f"{executor} local processes")
        )
    if _is_client(executor):
        return f"the Dask cluster at {executor.scheduler.address}"
    return f"the Dask cluster at {executor.strip()}"


def run_tasks(
    function: Callable[..., Any],
    tasks: Sequence[tuple],
    *,
    shared: dict[str, Any] | None = None,
    executor: object = None,
    on_result: Callable[[int, Any], None] | None = None,
    max_seconds: float | None = None,
) -> TaskResults:
    """``[function(*task, **shared) for task in tasks]``, run where ``executor``
    says (module docstring), results in task order.

    ``shared`` holds the large inputs every task needs: sent to each Dask worker
    once, not per task. ``on_result(index, result)`` is called in this process
    as each task finishes (in any order). ``max_seconds`` bounds the wait: tasks
    not finished by then are cancelled and reported missing.
    """
    check_executor(executor)
    seconds = check_max_seconds(max_seconds)
    shared = dict(shared or {})
    start = time.perf_counter()
    if executor is None or executor == 1:
        out = _run_here(function, tasks, shared, on_result, seconds)
    elif isinstance(executor, int):
        out = _run_joblib(function, tasks, shared, executor, on_result, seconds)
    else:
        out = _run_dask(function, tasks, shared, executor, on_result, seconds)
    results, missing, where = out
    return TaskResults(results, missing, where, time.perf_counter() - start)


def _out_of_time(pending: Sequence[int], seconds: float) -> dict[int, str]:
    why = f"not finished within the time budget of {seconds:g} s"
    return {i: why for i in pending}


def _run_here(function, tasks, shared, on_result, seconds):
    budget = Budget(seconds)
    results: list[Any] = [None] * len(tasks)
    for i, task in enumerate(tasks):
        if budget.check():
            return (
                results,
                _out_of_time(range(i, len(tasks)), seconds),
                ("this process"),
            )
        results[i] = function(*task, **shared)
        if on_result is not None:
            on_result(i, results[i])
    return results, {}, "this process"


def _indexed(function, i, task, shared):
    return i, function(*task, **shared)


def _run_joblib(function, tasks, shared, n_jobs, on_result, seconds):
    from joblib import Parallel, delayed

    budget = Budget(seconds)
    results: list[Any] = [None] * len(tasks)
    done: set[int] = set()
    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    jobs = (delayed(_indexed)(function, i, t, shared) for i, t in enumerate(tasks))
    where = describe_executor(n_jobs)
    for i, result in parallel(jobs):
        results[i] = result
        done.add(i)
        if on_result is not None:
            on_result(i, result)
        if budget.check() and len(done) < len(tasks):
            # joblib cannot cancel its running jobs; the generator's close stops
            # handing out new ones.
            pending = [k for k in range(len(tasks)) if k not in done]
            return results, _out_of_time(pending, seconds), where
    return results, {}, where


def _client(executor) -> tuple[Any, bool]:
    """A connected Client and whether this call owns it (and must close it)."""
    if _is_client(executor):
        return executor, False
    try:
        from distributed import Client
    except ImportError as error:
        raise ClusterError(
            "Running on a Dask cluster needs the 'distributed' package "
            '(pip install "dask[distributed]"); without it, leave the scheduler '
            "address unset and the work runs on this machine."
        ) from error
    address = executor.strip()
    try:
        client = Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise ClusterError(
            f"Cannot reach a Dask scheduler at {address} ({type(error).__name__}: "
            f"{error}). Check the address and that 'dask scheduler' runs there."
        ) from error
    return client, True


def _run_dask(function, tasks, shared, executor, on_result, seconds):
    from distributed import as_completed

    client, owned = _client(executor)
    try:
        workers = len(client.scheduler_info().get("workers", {}))
        where = f"{describe_executor(executor)} ({workers} workers)"
        # The large inputs go to every worker once; tasks carry references.
        refs = {
            name: client.scatter([value], broadcast=True, hash=False)[0]
            for name, value in shared.items()
        }
        run = uuid.uuid4().hex[:8]
        attempts = [0] * len(tasks)

        def submit(i: int):
            attempts[i] += 1
            return client.submit(
                function,
                *tasks[i],
                **refs,
                key=f"svmlab-{run}-{i}-{attempts[i]}",
                pure=False,
            )

        futures = {submit(i): i for i in range(len(tasks))}
        results: list[Any] = [None] * len(tasks)
        missing: dict[int, str] = {}
        budget = Budget(seconds)
        # set_as_default=False: as_completed must be told whose loop to use.
        pending = as_completed(list(futures), loop=client.loop)
        try:
            while not pending.is_empty():
                if budget.check():  # may raise FitCancelled
                    left = sorted(set(futures.values()))
                    missing.update(_out_of_time(left, seconds))
                    break
                batch = pending.next_batch(block=False)
                if not batch:
                    time.sleep(POLL_SECONDS)
                    continue
                for future in batch:
                    i = futures.pop(future)
                    if future.status == "finished":
                        results[i] = future.result()
                        if on_result is not None:
                            on_result(i, results[i])
                        continue
                    error = future.exception()
                    if isinstance(error, SvmlabError):
                        raise error
                    if attempts[i] <= RESUBMITS:
                        again = submit(i)
                        futures[again] = i
                        pending.add(again)
                    else:
                        missing[i] = (
                            f"failed {attempts[i]} times on the cluster "
                            f"({type(error).__name__}: {error})"
                        )
        finally:
            # Whatever is still queued (a budget, a cancel, an error) is dropped.
            client.cancel(list(futures))
        return results, missing, where
    finally:
        if owned:
            client.close()
