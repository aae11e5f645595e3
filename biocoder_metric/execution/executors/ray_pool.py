"""Run sandbox jobs on a Ray cluster: one actor per node, each owning a local sandbox pool.

Why this shape:

* **Same sandbox, same rules.** An actor builds exactly the pool a local run builds (same
  backend, image, limits, retry-once rule) on its node; only *where* a job runs changes, so
  verdicts cannot depend on the executor.
* **The driver stays the single writer.** The engine on the driver calls :meth:`RayPool.run`
  from its threads and gets the case outcomes back; judging, the golden cache (one per run,
  keyed by environment id) and the incremental results files all stay on the driver. So
  goldens are computed once per (task, case, seed, environment), results are written exactly
  as locally, and a run can resume under another executor.
* **Node loss loses nothing.** A job whose actor or node died is sent again to a live actor;
  its outcomes are returned once, so no sample is lost or counted twice.
* **One environment.** Every actor reports its sandbox ``environment_id`` at start; one that
  differs from the driver's (another image, another rootfs) is refused with an error naming
  the node, because the golden outputs and verdicts would silently mix environments.

Ray is imported only here, and this module only when ``executor == "ray"``.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import socket
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

from biocoder_metric.errors import SandboxError
from biocoder_metric.types import CaseOutcome, Job

log = logging.getLogger(__name__)

#: Seconds an actor may take to start its sandbox (first Docker container, bwrap rootfs export).
ACTOR_START_TIMEOUT_S = 600.0


class RayEnvironmentError(SandboxError):
    """A Ray node's sandbox environment differs from the driver's; results would mix environments."""


def _import_ray():
    # On a single host or loopback cluster Ray rewrites 127.0.0.1 to the routable address and the
    # driver hangs retrying it unless this is 0 (docs/scale.md); a user's own setting wins.
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    try:
        import ray
    except ImportError as exc:
        raise SandboxError(
            "--executor ray needs Ray: pip install 'biocoder-eval[ray]' (on the driver and on every node)"
        ) from exc
    return ray


def _local_pool(options: Any, role: str):
    """The pool a local run of ``role`` would build, on this node."""
    from biocoder_metric.execution.executors.local import SandboxPool

    return SandboxPool(dataclasses.replace(options, executor="local"), options.workers, role=role)


class NodeSandboxes:
    """Ray actor body: a local sandbox pool of one role on the node it was placed on.

    Threaded actor (``max_concurrency`` = pool size): concurrent ``run`` calls each borrow one
    sandbox of the pool, exactly as the engine's threads do locally.
    """

    def __init__(self, options: Any, role: str, size: int):
        opts = dataclasses.replace(options, workers=size)
        self.pool = _local_pool(opts, role)

    def info(self) -> dict[str, Any]:
        import os

        import ray

        return {
            "environment_id": self.pool.environment_id,
            "sandbox": self.pool.name,
            "node_id": ray.get_runtime_context().get_node_id(),
            "host": socket.gethostname(),
            "pid": os.getpid(),
        }

    def run(self, job: Job) -> list[CaseOutcome]:
        return self.pool.run(job)

    def close(self) -> None:
        self.pool.close()


@dataclass
class _Slot:
    """One actor as the driver sees it."""

    handle: Any
    node_id: str
    where: str
    size: int
    inflight: int = 0
    sandbox: str = ""
    environment_id: str = ""


@dataclass
class RayPoolStats:
    """What the pool did (logged at close; read by tests and the scaling benchmark)."""

    role: str
    actors: int = 0
    jobs: int = 0
    resubmitted: int = 0
    actors_lost: int = 0
    nodes: list[str] = dataclasses.field(default_factory=list)


#: Stats of every RayPool closed in this process, newest last (tests and benchmarks read it).
CLOSED_POOL_STATS: list[RayPoolStats] = []

_probe_lock = threading.Lock()
_probed: dict[tuple[str, str | None, str], tuple[str, str]] = {}


def _driver_environment(options: Any, role: str) -> tuple[str, str] | None:
    """(sandbox name, environment id) of the same sandbox built on the driver, or None if it cannot be.

    A driver without a sandbox (e.g. a login node without Docker) is allowed: the nodes must then
    agree among themselves.
    """
    key = (options.sandbox, options.image, role)
    with _probe_lock:
        if key not in _probed:
            try:
                pool = _local_pool(dataclasses.replace(options, workers=1), role)
            except SandboxError as exc:
                log.warning(
                    "ray executor: no %s sandbox on the driver (%s); nodes must agree among themselves",
                    options.sandbox,
                    exc,
                )
                return None
            try:
                _probed[key] = (pool.name, pool.environment_id)
            finally:
                pool.close()
        return _probed[key]


class RayPool:
    """A pool of sandboxes spread over a Ray cluster, with :class:`SandboxPool`'s interface.

    ``options.ray_address``: ``None`` = the ``RAY_ADDRESS`` cluster or a new local one,
    ``"auto"`` = the running cluster this machine belongs to, ``"ray://..."``/``"HOST:PORT"``.
    ``options.workers_per_node``: sandboxes per node (default: the node's CPU count in Ray).
    ``expected_environment_id`` overrides the driver's own probe (a test hook, and for drivers
    that must pin an environment they cannot build).
    """

    def __init__(self, options: Any, role: str = "candidate", expected_environment_id: str | None = None):
        self._ray = ray = _import_ray()
        self.options = options
        self.role = role
        self.stats = RayPoolStats(role=role)
        self._lock = threading.Lock()
        self._closed = False
        if not ray.is_initialized():
            ray.init(
                address=getattr(options, "ray_address", None),
                ignore_reinit_error=True,
                logging_level=logging.WARNING,
                log_to_driver=False,
            )
        if expected_environment_id is not None:
            expected = (None, expected_environment_id)
        else:
            expected = _driver_environment(options, role)
        self._slots: list[_Slot] = []
        self._start_actors(expected)
        first = self._slots[0]
        self.name: str = first.sandbox
        self.environment_id: str = first.environment_id
        self.size = sum(s.size for s in self._slots)
        log.info(
            "ray executor (%s): %d node(s), %d sandboxes, environment %s",
            role,
            len(self._slots),
            self.size,
            self.environment_id,
        )

    # ------------------------------------------------------------------ actors

    def _node_sizes(self) -> list[tuple[str, str, int]]:
        """(node id, address, sandboxes) for every alive node that offers CPUs."""
        per_node = getattr(self.options, "workers_per_node", None)
        out = []
        for node in self._ray.nodes():
            if not node.get("Alive"):
                continue
            cpus = int(node.get("Resources", {}).get("CPU", 0))
            if cpus < 1 and not per_node:
                continue
            out.append((node["NodeID"], node.get("NodeManagerAddress", "?"), per_node or max(1, cpus)))
        return out

    def _start_actors(self, expected: tuple[str | None, str] | None) -> None:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        nodes = self._node_sizes()
        if not nodes:
            raise SandboxError("ray executor: the Ray cluster has no alive node with CPUs")
        actor_cls = self._ray.remote(NodeSandboxes)
        pending = []
        for node_id, where, size in nodes:
            handle = actor_cls.options(
                num_cpus=0,  # sandboxes are processes the actor starts; Ray must not hold CPUs for the pool
                max_concurrency=size,
                max_restarts=0,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node_id, soft=False),
            ).remote(self.options, self.role, size)
            pending.append(
                (_Slot(handle=handle, node_id=node_id, where=where, size=size), handle.info.remote())
            )
        refused = []
        for slot, ref in pending:
            try:
                info = self._ray.get(ref, timeout=ACTOR_START_TIMEOUT_S)
            except Exception as exc:  # noqa: BLE001 - any start failure is reported with its node
                self._kill(slot)
                self._kill_all(s for s, _ in pending)
                raise SandboxError(
                    f"ray executor: node {slot.where} could not start its {self.options.sandbox} sandbox "
                    f"pool: {type(exc).__name__}: {exc}"
                ) from None
            slot.sandbox, slot.environment_id = info["sandbox"], info["environment_id"]
            slot.where = f"{info['host']} ({slot.where})"
            if expected is None:
                expected = (info["sandbox"], info["environment_id"])  # the first node sets it
            want_name, want_env = expected
            if info["environment_id"] != want_env or (want_name is not None and info["sandbox"] != want_name):
                refused.append(
                    f"node {slot.where}: sandbox {info['sandbox']} environment {info['environment_id']}"
                )
            self._slots.append(slot)
        if refused:
            self._kill_all(self._slots)
            raise RayEnvironmentError(
                f"ray executor: refusing node(s) whose sandbox environment differs from the driver's "
                f"({expected[1]}; another image or root filesystem?): "
                + "; ".join(refused)
                + ". Use the same image / installation on every node."
            )
        self.stats.actors = len(self._slots)
        self.stats.nodes = [s.where for s in self._slots]

    def _kill(self, slot: _Slot) -> None:
        try:
            self._ray.kill(slot.handle, no_restart=True)
        except Exception:  # noqa: BLE001 - the actor may be gone with its node already
            pass

    def _kill_all(self, slots) -> None:
        for slot in list(slots):
            self._kill(slot)

    # ------------------------------------------------------------------ dispatch

    def _pick(self) -> _Slot:
        with self._lock:
            if not self._slots:
                raise SandboxError(
                    f"ray executor ({self.role}): every node running sandboxes was lost; "
                    "finished results are kept and rerunning the same command resumes"
                )
            slot = min(self._slots, key=lambda s: s.inflight / s.size)
            slot.inflight += 1
            return slot

    def _lost(self, slot: _Slot, exc: BaseException) -> None:
        with self._lock:
            if slot in self._slots:
                self._slots.remove(slot)
                self.stats.actors_lost += 1
                line = (
                    f"ray executor ({self.role}): lost node {slot.where} ({type(exc).__name__}: "
                    f"{str(exc).splitlines()[0][:200] if str(exc) else ''}); its jobs go to the other nodes "
                    f"({len(self._slots)} left)"
                )
                log.warning(line)
                print(line, file=sys.stderr, flush=True)  # shown whatever logging is configured
                self._kill(slot)

    def run(self, job: Job) -> list[CaseOutcome]:
        """Run ``job`` on the least loaded node; resubmitted elsewhere if that node dies meanwhile."""
        from ray import exceptions as rx

        lost_errors = tuple(
            getattr(rx, name)
            for name in (
                "RayActorError",
                "ActorUnavailableError",
                "WorkerCrashedError",
                "NodeDiedError",
                "ObjectLostError",
                "OwnerDiedError",
                "LocalRayletDiedError",
            )
            if hasattr(rx, name)
        )
        with self._lock:
            self.stats.jobs += 1
        while True:
            slot = self._pick()
            try:
                return self._ray.get(slot.handle.run.remote(job))
            except lost_errors as exc:
                self._lost(slot, exc)
                with self._lock:
                    self.stats.resubmitted += 1
            finally:
                with self._lock:
                    slot.inflight -= 1

    @property
    def concurrency(self) -> int:
        """Jobs the cluster can run at once (the engine sizes its dispatch threads to this)."""
        return self.size

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        refs = []
        for slot in list(self._slots):
            try:
                refs.append(slot.handle.close.remote())
            except Exception:  # noqa: BLE001 - dead actor: nothing to close
                pass
        deadline = time.monotonic() + 60
        for ref in refs:
            try:
                self._ray.get(ref, timeout=max(1.0, deadline - time.monotonic()))
            except Exception:  # noqa: BLE001 - closing is best effort; the actor is killed next
                pass
        self._kill_all(self._slots)
        self._slots.clear()
        CLOSED_POOL_STATS.append(self.stats)
        log.info(
            "ray executor (%s): %d jobs on %d node(s), %d resubmitted, %d node(s) lost",
            self.role,
            self.stats.jobs,
            self.stats.actors,
            self.stats.resubmitted,
            self.stats.actors_lost,
        )


__all__ = ["CLOSED_POOL_STATS", "NodeSandboxes", "RayEnvironmentError", "RayPool", "RayPoolStats"]
