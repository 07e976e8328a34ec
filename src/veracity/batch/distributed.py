"""Run a batch on Ray: `veracity batch IN --out OUT --ray [ADDRESS]`, or `batch_on_ray` in Python.

Each Ray worker is an actor that builds one `Checker` from the run's settings and checks the
rows it is given with the same function as `abatch`. A `ray.util.ActorPool` hands the rows
out; this process reads the input, keeps a few rows per worker in flight, and writes each line
to OUT as it comes back, through the same `Ledger` as `abatch`: same skipping, output, summary
and progress callback. A worker that dies is restarted by Ray and its row tried once more;
a row that still fails is recorded as an error line. Ray is imported only when a run asks for
it, so it stays an optional dependency (``pip install 'veracity[ray]'``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veracity.batch.ledger import BatchSummary, Ledger, RowDone
from veracity.batch.rows import BatchRow
from veracity.batch.run import check_row
from veracity.errors import ConfigurationError
from veracity.run.checker import Checker

if TYPE_CHECKING:
    from ray import ObjectRef
    from ray.util import ActorPool

INSTALL_HINT = "Ray is not installed: pip install 'veracity[ray]'"

ROWS_PER_WORKER = 2
"""Rows handed to the pool per worker: one being checked, one waiting for when it finishes."""

TASK_RETRIES = 1
"""Further tries of a row whose worker died while checking it (Ray restarts the worker first)."""

Held = dict[tuple[str, str], "tuple[BatchRow, ObjectRef[dict[str, Any]]]"]
"""The rows a worker is checking, by id and digest, with the reference to their coming line. Rows
that share an id differ in digest, and the `Ledger` hands out each (id, digest) once."""

Worker = Any
"""A Ray handle to a `RowWorker` actor. Ray types `.remote` only on methods decorated with
`ray.method` at import time, and this module imports Ray only when a run needs it."""

_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


class RowWorker:
    """What a Ray actor holds: one `Checker` built from the run's settings; it checks one row at a time."""

    def __init__(self, settings: dict[str, Any]) -> None:
        """Build the checker, and fail now if its model or evidence cannot be set up on this machine."""
        self._checker = Checker(**settings)
        self._checker.resources.preflight(self._checker.context())

    def ready(self) -> bool:
        """Answers once the actor is built, so the driver can wait for every worker before handing out rows."""
        return True

    async def check(self, row: BatchRow) -> dict[str, Any]:
        """The output line of `row`, exactly as `abatch` writes it."""
        return await check_row(self._checker, row)


def batch_on_ray(
    source: Path | Iterable[BatchRow], out: Path, *, address: str | None = None, workers: int | None = None,
    text_field: str = "text", on_row: RowDone | None = None, **settings: Any,
) -> BatchSummary:
    """`abatch` with the rows checked by Ray workers: same input, output, resume, summary and callback.

    Connects to Ray with ``ray.init(address=address)``: None starts a local Ray or attaches to
    the one already running on this machine; ``"auto"``, ``"HOST:6379"`` or
    ``"ray://HOST:10001"`` reach a cluster. When this process is already connected to Ray,
    that connection is used and `address` is ignored; otherwise the connection made here is
    closed at the end. `workers` Ray actors (default: the cluster's CPU count) each build one
    `Checker(**settings)`, so `settings` must be picklable (model names, paths as strings) and
    whatever they name (the knowledge base path, API keys in the environment) must exist on
    every worker machine. Blocks until every row is done; call it in a thread from async code.

    Raises:
        ConfigurationError: Ray is not installed or cannot be reached, a setting cannot work
            here or on a worker (checked before any row runs), or the settings cannot be
            sent to the workers.
    """
    _require_ray()
    import ray
    from ray.util import ActorPool

    checker = Checker(**settings)
    checker.resources.preflight(checker.context())
    connect = not ray.is_initialized()
    if connect:
        _connect(address)
    try:
        actors = _start_workers(settings, workers)
        try:
            with Ledger(source, out, text_field=text_field, on_row=on_row) as ledger:
                _check_rows(ActorPool(actors), ledger, len(actors) * ROWS_PER_WORKER)
        finally:
            for actor in actors:
                ray.kill(actor)
        return ledger.summary
    finally:
        if connect:
            ray.shutdown()


def _require_ray() -> None:
    try:
        import ray  # noqa: F401
    except ImportError as error:
        raise ConfigurationError(INSTALL_HINT) from error


def _connect(address: str | None) -> None:
    import ray

    try:
        ray.init(address=address or None)
    except (ConnectionError, RuntimeError, ValueError) as error:
        where = f" at {address}" if address else ""
        raise ConfigurationError(f"could not start or reach Ray{where}: {_brief(error)}") from error


def _start_workers(settings: dict[str, Any], workers: int | None) -> list[Worker]:
    """Start the actors and wait until each has built its checker."""
    import ray

    cpus = int(ray.cluster_resources().get("CPU", 0))  # type: ignore[no-untyped-call]  # Ray leaves it unannotated
    count = max(1, workers or cpus)
    # A worker reserves a core while there are enough for all of them; beyond that they share the cores.
    options: dict[str, Any] = {"num_cpus": 1 if count <= cpus else 0, "max_restarts": -1,
                               "max_task_retries": TASK_RETRIES, "scheduling_strategy": "SPREAD"}
    actors: list[Worker] = []
    try:
        for _ in range(count):
            actors.append(ray.remote(RowWorker).options(**options).remote(settings))
    except TypeError as error:  # Ray could not pickle the settings
        for actor in actors:
            ray.kill(actor)
        raise ConfigurationError(f"the settings cannot be sent to Ray workers (they must be picklable): "
                                 f"{_brief(error)}") from error
    try:
        ray.get([actor.ready.remote() for actor in actors])
    except ray.exceptions.RayActorError as error:
        for actor in actors:
            ray.kill(actor)
        raise ConfigurationError(f"a Ray worker could not start: {_brief(error)}") from error
    return actors


def _check_rows(pool: ActorPool, ledger: Ledger, limit: int) -> None:
    """Keep up to `limit` rows in the pool and record each line as it comes back, in order of completion."""
    held: Held = {}

    def dispatch(actor: Worker, row: BatchRow) -> ObjectRef[dict[str, Any]]:
        ref: ObjectRef[dict[str, Any]] = actor.check.remote(row)
        held[row.id, row.digest] = (row, ref)
        return ref

    queued = 0
    while True:
        while queued < limit and (row := ledger.next_row()) is not None:
            pool.submit(dispatch, row)
            queued += 1
        if not queued:
            return
        ledger.record(*_next_line(pool, held))
        queued -= 1


def _next_line(pool: ActorPool, held: Held) -> tuple[BatchRow, dict[str, Any]]:
    """The next row to finish and its line: its report or error, or the failure of the worker that held it."""
    import ray

    if not held:  # rows are queued but no actor took them: every worker is gone for good
        raise RuntimeError("no Ray worker is left to check the remaining rows")
    try:
        record: dict[str, Any] = pool.get_next_unordered()
    except ray.exceptions.RayError as error:
        _raise_configuration_error(error)
        return _lost_row(held)
    row, _ = held.pop((record["id"], record["digest"]))
    return row, record


def _lost_row(held: Held) -> tuple[BatchRow, dict[str, Any]]:
    """A row whose check ended in a Ray failure (its worker died), with an error line for it.

    The pool says that a check failed, not which: the failed one is among the finished
    references of the rows held. When several failed, each is found in turn as the pool
    reports it.
    """
    import ray

    refs = {ref: key for key, (_, ref) in held.items()}
    finished, _ = ray.wait(list(refs), num_returns=len(refs), timeout=0)
    for ref in finished:
        try:
            ray.get(ref)
        except ray.exceptions.RayError as error:
            _raise_configuration_error(error)
            row, _ = held.pop(refs[ref])
            return row, {"id": row.id, "line": row.line, "digest": row.digest,
                         "error": f"the Ray worker checking it failed: {_brief(error)}"}
    raise RuntimeError("a Ray check failed, but none of the rows in flight did")  # the pool and `held` disagree


def _raise_configuration_error(error: Exception) -> None:
    """Raise the `ConfigurationError` a worker raised (it concerns every row); return for any other failure."""
    import ray

    if isinstance(error, ray.exceptions.RayTaskError) and isinstance(error.cause, ConfigurationError):
        raise error.cause from None


def _brief(error: BaseException) -> str:
    """The error's type and the last line of its message, which for Ray's errors is the cause."""
    lines = [line.strip() for line in _COLOUR.sub("", str(error)).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[-1]}" if lines else type(error).__name__
