"""Fuzzing campaigns across machines: a Dask distributed cluster and a shared example database.

    python -m nanopass.fuzz --cluster                      # a local Dask cluster, --workers processes
    python -m nanopass.fuzz --cluster tcp://HOST:8786 --db redis://HOST:6379/0

Why Dask distributed (not Ray): it is pure Python on top of the packages we already use, starts
a local cluster in seconds on a 2-core box, and the same `dask worker tcp://HOST:8786` command
joins any machine to a running scheduler; its futures carry our picklable results back and its
`Queue` carries progress. Ray's object store and raylet would be a much heavier dependency for
work that is one long task per core.

Each worker runs `run_campaign` (the same loop as a local worker process) as one task, with the
fuzz target built on the worker from its spec. The Hypothesis example database is shared through
a real Redis server (`hypothesis.extra.redis.RedisExampleDatabase`): every worker reads and
writes it and replays it before every chunk, so a failure one machine finds (and Hypothesis
saves, shrunk) replays first on all the others, and on every later campaign. The client
aggregates the workers' statistics and failures (deduplicated by failure key, smallest program
kept, the finders remembered) into the same summary as a local campaign.
"""

from __future__ import annotations

import importlib
import time
import uuid
from typing import Any, Iterable

from typing_extensions import override

from nanopass.progress import Progress

REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
DB_KEY_PREFIX = b"nanopass-fuzz:"


class SetupError(Exception):
    """The cluster or the database cannot be reached (exit status 2)."""


def is_shared_database(spec: str | None) -> bool:
    return bool(spec) and str(spec).startswith(REDIS_SCHEMES)


def open_database(spec: str | None) -> Any:
    """The Hypothesis example database named by `spec`: a Redis URL (shared between machines) or
    a directory (this machine only); None for no database."""
    if not spec:
        return None
    if is_shared_database(spec):
        return KeepFailuresDatabase(_redis_database(spec))
    from hypothesis.database import DirectoryBasedExampleDatabase

    return DirectoryBasedExampleDatabase(spec)


def _redis_database(url: str) -> Any:
    try:
        redis: Any = importlib.import_module("redis")
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError as exc:  # pragma: no cover - the [cluster] extra is not installed
        raise SetupError(f"a Redis example database needs the redis package ({exc}); "
                         "pip install -e '.[cluster]'") from None
    client = redis.Redis.from_url(url, socket_connect_timeout=5)
    try:
        client.ping()
    except redis.RedisError as exc:
        raise SetupError(f"cannot reach the Redis example database at {url}: {exc}") from None
    return RedisExampleDatabase(client, key_prefix=DB_KEY_PREFIX)


def _keep_failures_database_class() -> type:
    from hypothesis.database import ExampleDatabase

    class _KeepFailures(ExampleDatabase):
        """A shared database that keeps failing examples while campaigns replay them.

        Hypothesis deletes a primary example that no longer fails when replayed. In a campaign,
        the worker that found a failure replays it without failing (it already reported that
        failure), and would delete it before the other workers replay it; so deletions from
        the primary corpus are dropped here. Shrinking still moves superseded examples to the
        secondary corpus, and Redis expires what no campaign touched for a week."""

        def __init__(self, wrapped: Any) -> None:
            super().__init__()
            self.wrapped = wrapped

        @override
        def __repr__(self) -> str:
            return f"KeepFailures({self.wrapped!r})"

        @override
        def save(self, key: bytes, value: bytes) -> None:
            self.wrapped.save(key, value)

        @override
        def fetch(self, key: bytes) -> Iterable[bytes]:
            return self.wrapped.fetch(key)  # type: ignore[no-any-return]

        @override
        def delete(self, key: bytes, value: bytes) -> None:
            if key.endswith((b".secondary", b".pareto")):
                self.wrapped.delete(key, value)

        @override
        def move(self, src: bytes, dest: bytes, value: bytes) -> None:
            self.wrapped.move(src, dest, value)

    return _KeepFailures


_KEEP: list[type] = []


def KeepFailuresDatabase(wrapped: Any) -> Any:  # noqa: N802 - a class, built lazily (imports hypothesis)
    if not _KEEP:
        _KEEP.append(_keep_failures_database_class())
    return _KEEP[0](wrapped)


# -- the task each worker runs -------------------------------------------------------------------


def cluster_task(target_spec: str | None, options: dict[str, Any], config: Any, queue_name: str) -> tuple[Any, list[Any]]:
    """One worker's campaign on a cluster worker: returns (WorkerStats, failures)."""
    import contextlib

    Queue = _distributed().Queue  # noqa: N806
    from nanopass.cli import tune_gc_for_compilation
    from nanopass.fuzz import _portable, configure_target, load_target, run_campaign

    tune_gc_for_compilation()
    target = load_target(target_spec)
    configure_target(target, options)
    progress = Queue(queue_name)

    def report(stats: Any, failures: list[Any]) -> None:
        progress.put(("progress", config.worker, stats, len(failures)))

    planted = options.get("plant")
    patch: Any = contextlib.nullcontext()
    if planted:
        by_name = {m.name: m for m in target.mutants()}
        patch = by_name[planted].applied()
    with patch:
        stats, failures = run_campaign(target, config, report)
    return stats, [_portable(f) for f in failures]


# -- the client side ------------------------------------------------------------------------------


def _distributed() -> Any:
    """The `distributed` package (untyped; imported only when a cluster campaign runs)."""
    try:
        return importlib.import_module("distributed")
    except ImportError as exc:  # pragma: no cover - the [cluster] extra is not installed
        raise SetupError(f"--cluster needs Dask distributed ({exc}); pip install -e '.[cluster]'") from None


def _connect(address: str | None, workers: int) -> tuple[Any, Any, int]:
    """(client, local cluster or None, number of workers)."""
    dd = _distributed()
    Client, LocalCluster = dd.Client, dd.LocalCluster  # noqa: N806

    if address:
        try:
            client = Client(address, timeout=30)
        except (OSError, TimeoutError) as exc:
            raise SetupError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        available = len(client.scheduler_info().get("workers", {}))
        if available == 0:
            client.close()
            raise SetupError(f"the Dask cluster at {address} has no workers (start some with "
                             f"`dask worker {address}`)")
        return client, None, available
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=40)
    return Client(cluster), cluster, workers


def cluster_campaign(address: str | None, target_spec: str | None, options: dict[str, Any], workers: int,
                     seconds: float | None, examples: int | None, seed: int, database: str | None, shrink: bool,
                     stream: Any) -> tuple[Any, list[Any], float, int]:
    """Run one campaign task per cluster worker; returns (merged stats, failures, wall, workers)."""
    Queue = _distributed().Queue  # noqa: N806

    from nanopass.fuzz import CampaignConfig, Failure, Outcome, WorkerStats, _dedupe, _merge

    if database and not is_shared_database(database):
        stream.write(f"[fuzz] note: --db {database} is a directory on each worker's machine, not shared; "
                     "pass --db redis://HOST:PORT/0 to share failures between machines\n")
    if is_shared_database(database):
        open_database(database)  # fail early, here, when the server cannot be reached
    client, cluster, count = _connect(address, workers)
    start = time.monotonic()
    try:
        queue = Queue(f"nanopass-fuzz-{uuid.uuid4().hex}", client=client)
        per_worker = None if examples is None else max(1, -(-examples // count))
        budget = seconds if seconds is not None else 10.0 ** 9
        futures = []
        for index in range(count):
            config = CampaignConfig(0.0, per_worker, seed + index, database, shrink, worker=index, workers=count,
                                    shared_database=is_shared_database(database), seconds=budget)
            futures.append(client.submit(cluster_task, options.get("target_spec", target_spec), options, config,
                                         queue.name, pure=False, key=f"fuzz-worker-{index}-{uuid.uuid4().hex[:8]}"))
        progress = Progress(stream)
        latest: dict[int, WorkerStats] = {}
        found: dict[int, int] = {}
        passes_total = int(options.get("passes_total", 0))
        while not all(f.done() for f in futures):
            time.sleep(0.5)
            for _, index, stats, failures in queue.get(batch=True):  # what arrived, without waiting
                latest[index] = stats
                found[index] = failures
            if latest:
                merged = _merge(latest.values())
                progress.update(_progress_text(merged, sum(found.values()), time.monotonic() - start,
                                               passes_total, count))
        results: list[tuple[WorkerStats, list[Failure]]] = []
        errors: list[str] = []
        for index, future in enumerate(futures):
            try:
                results.append(future.result())
            except Exception as exc:  # a worker's task failed: reported, never silent
                errors.append(f"worker {index}: {type(exc).__name__}: {exc}")
        merged = _merge(r[0] for r in results)
        progress.update(_progress_text(merged, sum(len(r[1]) for r in results), time.monotonic() - start,
                                       passes_total, count), force=True)
        progress.close()
        failures = _dedupe([f for r in results for f in r[1]])
        failures += [Failure(Outcome("crash", "campaign", "worker", message), "", "", "") for message in errors]
        return merged, failures, time.monotonic() - start, count
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _progress_text(stats: Any, failures: int, elapsed: float, passes_total: int, workers: int) -> str:
    rate = stats.programs / elapsed if elapsed > 0 else 0.0
    return (f"[fuzz] {stats.programs} programs  {rate:6.1f}/s on {workers} worker(s)  failures {failures}  "
            f"ops {len(stats.coverage)}  passes changing {len(stats.changed)}/{passes_total}  {elapsed:5.1f}s")


__all__ = ["SetupError", "cluster_campaign", "is_shared_database", "open_database"]
