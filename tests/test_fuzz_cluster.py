"""Campaigns across machines, for real: a local Dask cluster with two worker processes and a real
Redis server as the shared Hypothesis example database (started here on a free loopback port)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

import pytest

from nanopass.fuzz import CampaignConfig, Mutant, Outcome, run_campaign
from nanopass.fuzz_cluster import DB_KEY_PREFIX, open_database

ROOT = Path(__file__).resolve().parent.parent
REDIS = shutil.which("redis-server")
# CI installs redis-server (.ci/run); elsewhere a missing server skips rather than fails.
needs_redis = pytest.mark.skipif(REDIS is None and not os.environ.get("CI"),
                                 reason="redis-server is not installed (apt-get install redis-server)")
# Every program the generator makes has a kernel with an Out parameter: found at once (by the
# WrittenParamsDeclared verifier, right after the mutated pass).
PLANTED = "out-param-as-in"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    assert REDIS is not None, "redis-server is not installed"
    port = _free_port()
    server = subprocess.Popen([REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                               "--dir", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import redis

        client = redis.Redis(port=port)
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(timeout=10)


def _stored_examples(url: str) -> int:
    import redis

    client = redis.Redis.from_url(url)
    return sum(int(client.scard(key)) for key in client.keys(DB_KEY_PREFIX + b"*"))


@needs_redis
def test_two_worker_cluster_campaign_finds_the_planted_mutant_once(redis_url: str, tmp_path: Path) -> None:
    regressions = tmp_path / "regressions"
    env = {k: v for k, v in os.environ.items() if k != "NANOPASS_PLUGIN"}
    result = subprocess.run(
        [sys.executable, "-m", "nanopass.fuzz", "--cluster", "--workers", "2", "--db", redis_url,
         "--plant", PLANTED, "--examples", "6", "--seed", "3", "--regressions", str(regressions)],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env, stdin=subprocess.DEVNULL)
    out, err = result.stdout, result.stderr
    assert result.returncode == 1, out + err  # a failure was found
    assert "on 2 worker(s)" in out, out
    # Deduplicated: both workers found it, it is reported once, with one regression file.
    failures = re.findall(r"^FAILURE (.*)$", out, re.M)
    assert len(failures) == 1, out
    assert failures[0].startswith("verifier") and "upgrade-param-directions" in failures[0], out
    assert "hypothesis" not in failures[0] and "Flaky" not in out, out
    finders = re.search(r"^  found by (.*)$", out, re.M)
    assert finders is not None and "worker 0" in finders.group(1) and "worker 1" in finders.group(1), out
    files = list(regressions.glob("*.py"))
    assert len(files) == 1 and f"wrote {files[0]}" in out
    # Shrunk: Hypothesis reduced the program to a single small kernel.
    program = files[0].read_text()
    assert program.count("@pl.function(type=pl.FunctionType.InCore)") == 1, program
    # The failure is in the shared database for the next campaign (and for other machines).
    assert _stored_examples(redis_url) >= 1
    # Progress in a log is whole lines (no carriage returns), ending in the final count.
    assert "\r" not in err and re.search(r"^\[fuzz\] \d+ programs .* on 2 worker\(s\)", err, re.M), err


# -- the shared database replays a failure first, on another worker --------------------------------------


@dataclass
class _Threshold:
    """A tiny fuzz target: integers, failing from `limit` up (Hypothesis shrinks to `limit`)."""

    limit: int = 1000
    name: str = "threshold"

    def configure(self, pipeline: str | None, backend: str | None, features: str | None) -> None:
        pass

    def strategy(self) -> Any:
        from hypothesis import strategies as st

        return st.integers(0, 10 ** 6)

    def check(self, case: Any, blame: bool = True) -> Outcome:
        return Outcome("mismatch", "threshold", "too-big", str(case)) if case >= self.limit else Outcome("ok")

    def regression_file(self, case: Any, outcome: Outcome) -> tuple[str, str]:
        return f"threshold_{case}", f"CASE = {case}\n"

    def describe(self, case: Any) -> str:
        return str(case)

    def mutants(self) -> Sequence[Mutant]:
        return ()


@needs_redis
def test_a_failure_saved_by_one_worker_replays_first_on_another(redis_url: str) -> None:
    target = _Threshold()

    def worker(index: int, examples: int) -> Any:
        config = CampaignConfig(time.monotonic() + 120, examples, seed=index, database=redis_url, shrink=True,
                                worker=index, shared_database=True)
        return run_campaign(target, config)

    _, found = worker(0, 400)
    assert [f.program for f in found] == ["1000"]  # found and shrunk to the boundary
    assert found[0].found_at > 1  # generated, not replayed
    # A fresh worker elsewhere, another seed: its very first program is the saved failure.
    _, replayed = worker(1, 5)
    assert [(f.program, f.found_at) for f in replayed] == [("1000", 1)]
    # Without the shared database it would not have been the first program.
    config = CampaignConfig(time.monotonic() + 120, 5, seed=1, database=None, shrink=True)
    _, alone = run_campaign(target, config)
    assert all(f.found_at > 1 for f in alone)


def test_a_directory_database_is_not_shared(tmp_path: Path) -> None:
    from hypothesis.database import DirectoryBasedExampleDatabase

    assert isinstance(open_database(str(tmp_path)), DirectoryBasedExampleDatabase)
    assert open_database(None) is None and open_database("") is None
