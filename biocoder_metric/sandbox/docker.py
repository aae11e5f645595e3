"""The ``docker`` backend: a long-lived, locked-down container per sandbox; the worker is its pid 1.

Starting a container per case costs about a second; instead each :class:`DockerSandbox` keeps
one container whose main process (pid 1) is the worker, attached over stdin/stdout. As pid 1
the worker cannot be signalled from inside, and its ``kill(-1)`` after each case reaches every
leftover. The container has no network, a read-only root, size-capped tmpfs ``/tmp``,
``/var/tmp``, ``/dev/shm`` and ``/work``, no capabilities, ``no-new-privileges``, a non-root
user, memory/pids/CPU limits and no log driver. Timeouts are enforced by the worker inside;
the host keeps a backstop deadline, and after any fault (worker silent or dead, OOM kill) the
container is thrown away and a fresh one started.

Containers carry the label ``biocoder-eval=1`` (plus the owning host pid), are removed on
:meth:`close` and at interpreter exit, and :func:`remove_stale_containers` removes those
whose owner process is gone.
"""

from __future__ import annotations

import atexit
import os
import select
import socket
import struct
import sys
import threading
import time
import weakref
from typing import Any

from biocoder_metric.sandbox.base import (
    CONTAINER_PATH,
    Channel,
    SandboxError,
    WorkerSandbox,
    clean_env,
    prepared_runtime_dir,
)
from biocoder_metric.types import RunStatus

LABEL = "biocoder-eval"
RUNTIME_MOUNT = "/opt/biocoder/runtime"
WORKROOT = "/work/.cases"
SANDBOX_USER = "10001:10001"
# the image's "sandbox" user (docker/Dockerfile)

_live: weakref.WeakSet[DockerSandbox] = weakref.WeakSet()
_live_lock = threading.Lock()
_swept = False
_unremoved: set[str] = set()  # ids of our containers whose removal failed; see _remove_pending


def _client(timeout: int = 60) -> Any:
    try:
        import docker
    except ImportError as exc:
        raise SandboxError(
            "the docker sandbox needs the Docker SDK: pip install 'biocoder-eval[docker]'"
        ) from exc
    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except Exception as exc:
        raise SandboxError(
            f"no Docker engine is reachable ({exc}); start dockerd or run scripts/setup_docker.sh"
        ) from exc
    return client


def _default_image() -> str:
    from biocoder_metric.sandbox.image import DEFAULT_IMAGE

    return DEFAULT_IMAGE


def docker_ready(image: str | None = None) -> bool:
    """True if an engine answers and has the image (so ``make_sandbox('docker')`` can work)."""
    try:
        client = _client(timeout=10)
    except SandboxError:
        return False
    try:
        client.images.get(image or _default_image())
        return True
    except Exception:
        return False
    finally:
        client.close()


def remove_stale_containers(client: Any | None = None) -> int:
    """Remove labelled containers whose owning process (on this host) no longer exists."""
    own = client is None
    client = client or _client()
    removed = 0
    try:
        host = socket.gethostname()
        for c in client.containers.list(all=True, filters={"label": f"{LABEL}=1"}):
            labels = c.labels or {}
            if f"{LABEL}.pid" not in labels:  # not made by this module: not ours to judge
                continue
            pid = int(labels.get(f"{LABEL}.pid", "0") or 0)
            if labels.get(f"{LABEL}.host") != host or (pid and _pid_alive(pid)):
                continue  # another machine's, or its owner still runs
            try:
                c.remove(force=True)
                removed += 1
            except Exception:
                pass
    finally:
        if own:
            client.close()
    return removed


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_pending(api: Any) -> None:
    """Remove every container in ``_unremoved``; keep those the engine cannot remove right now.

    A removal fails while the engine is away (a daemon restart stops our containers but keeps
    them), often in a sandbox that is then thrown away; so the ids are kept here, process-wide,
    and retried by every later removal and at exit.
    """
    with _live_lock:
        ids = list(_unremoved)
    for cid in ids:
        try:
            api.remove_container(cid, force=True)
        except Exception as exc:
            if getattr(getattr(exc, "response", None), "status_code", None) != 404:
                continue  # engine unreachable or busy: retried next time
        with _live_lock:
            _unremoved.discard(cid)


@atexit.register
def _close_all() -> None:
    with _live_lock:
        boxes = list(_live)
    for box in boxes:
        try:
            box.close()
        except Exception:
            pass
    # Left by sandboxes closed while the engine was away (e.g. a daemon restart as the run
    # ended): wait a bounded time for the engine to come back rather than leave them behind.
    deadline = time.monotonic() + 60
    while _unremoved and time.monotonic() < deadline:
        try:
            client = _client(timeout=10)
        except SandboxError:
            time.sleep(1)
            continue
        try:
            _remove_pending(client.api)
        finally:
            client.close()
        if _unremoved:
            time.sleep(1)
    if _unremoved:
        print(
            f"biocoder: {len(_unremoved)} sandbox container(s) could not be removed (Docker engine "
            f"unreachable): {', '.join(c[:12] for c in sorted(_unremoved))}; the next docker run removes them",
            file=sys.stderr,
        )


class DockerExecChannel(Channel):
    """The attached stdin/stdout/stderr of the worker container (multiplexed frames, no TTY)."""

    def __init__(self, owner: DockerSandbox, sock: Any):
        self.owner = owner
        self.sock = getattr(sock, "_sock", sock)
        self.sock.setblocking(True)
        self.raw = b""
        self.err = b""
        self.eof = False

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv(self, timeout: float) -> bytes | None:
        deadline = time.monotonic() + timeout
        while True:
            out = self._frames()
            if out:
                return out
            if self.eof:
                return b""
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.sock], [], [], left)
            if not ready:
                return None
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                self.eof = True
            self.raw += chunk

    def _frames(self) -> bytes:
        out = b""
        while len(self.raw) >= 8:
            kind, size = struct.unpack(">BxxxL", self.raw[:8])
            if len(self.raw) < 8 + size:
                break
            payload, self.raw = self.raw[8 : 8 + size], self.raw[8 + size :]
            if kind == 1:
                out += payload
            else:
                self.err = (self.err + payload)[-8000:]
        return out

    def kill(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
        self.owner._remove_container()

    def stderr_tail(self) -> str:
        return self.err.decode("utf-8", "replace")


class DockerSandbox(WorkerSandbox):
    """One container, one worker; replaced after any fault. See the module docstring."""

    name = "docker"

    def __init__(
        self,
        *,
        image: str | None = None,
        warm: bool = True,
        memory_mb: int = 4096,
        cpus: float = 1.0,
        pids_limit: int = 256,
        tmpfs_mb: int = 1024,
        batch: bool = True,
        **_ignored: object,
    ):
        super().__init__(warm=warm, batch=batch)
        self.image = image or _default_image()
        self.client = _client()
        try:
            self.image_id = self.client.images.get(self.image).id
        except Exception as exc:
            self.client.close()
            raise SandboxError(
                f"Docker image {self.image!r} not found ({exc}); build it with scripts/setup_docker.sh "
                "or pass image=/--image an existing tag"
            ) from exc
        self.memory_mb = int(memory_mb)
        self.cpus = float(cpus)
        self.pids_limit = int(pids_limit)
        self.tmpfs_mb = int(tmpfs_mb)
        self._runtime = prepared_runtime_dir()
        self._container: Any = None
        global _swept
        with _live_lock:
            _live.add(self)
            sweep, _swept = not _swept, True
        if sweep:  # once per process: containers left by crashed runs (owner pid gone)
            try:
                remove_stale_containers(self.client)
            except Exception:
                pass

    @property
    def environment_id(self) -> str:
        return f"image:{self.image_id}"

    def _describe(self) -> str:
        return f"docker ({self.image})"

    def stats(self) -> dict[str, Any]:
        """:meth:`WorkerSandbox.stats` plus ``container_id`` (the running worker's container, whose
        cgroup holds every case; None when none runs), ``image`` and ``image_id``."""
        container = self._container
        return {
            **super().stats(),
            "container_id": container.id if container is not None else None,
            "image": self.image,
            "image_id": self.image_id,
        }

    # -- container lifecycle

    def _start_worker_container(self) -> tuple[Any, Any]:
        """Create a container whose pid 1 IS the worker, attach to its stdio, then start it.

        As pid 1 the worker ignores every signal sent from inside the container (a case cannot
        kill it), its ``kill(-1)`` after each case reaches everything else, and being
        non-dumpable its /proc/1/fd cannot be opened by a case to forge protocol lines.
        """
        tmpfs_opts = f"rw,nosuid,nodev,size={self.tmpfs_mb}m"
        # The container's pids cgroup (pids_limit) bounds processes; RLIMIT_NPROC would be shared
        # by every container running as the same uid and fail cases under load.
        argv = [
            "python3",
            "-s",
            f"{RUNTIME_MOUNT}/worker.py",
            "--contained",
            "--workroot",
            WORKROOT,
            "--max-procs",
            "0",
        ]
        if (self._runtime / "Runner.class").is_file():
            argv += ["--runtime-dir", RUNTIME_MOUNT]
        api = self.client.api
        cid = None
        try:
            from docker.types import LogConfig

            host_config = api.create_host_config(
                network_mode="none",
                mem_limit=f"{self.memory_mb}m",
                memswap_limit=f"{self.memory_mb}m",
                pids_limit=self.pids_limit,
                nano_cpus=int(self.cpus * 1e9),
                read_only=True,
                tmpfs={
                    "/tmp": f"{tmpfs_opts},mode=1777",
                    "/var/tmp": f"{tmpfs_opts},mode=1777",
                    "/dev/shm": f"rw,nosuid,nodev,noexec,size={min(self.tmpfs_mb, 256)}m,mode=1777",
                    "/work": f"{tmpfs_opts},mode=0755,uid=10001,gid=10001",
                },
                cap_drop=["ALL"],
                security_opt=["no-new-privileges"],
                binds={str(self._runtime): {"bind": RUNTIME_MOUNT, "mode": "ro"}},
                # Nothing a case prints can reach the host's disk through the engine's log.
                log_config=LogConfig(type="none"),
                ipc_mode="private",
                init=False,
            )
            cid = api.create_container(
                self.image_id,
                command=argv,
                user=SANDBOX_USER,
                working_dir="/work",
                environment=clean_env({"HOME": "/tmp"}, path=CONTAINER_PATH),
                labels={LABEL: "1", f"{LABEL}.pid": str(os.getpid()), f"{LABEL}.host": socket.gethostname()},
                stdin_open=True,
                tty=False,
                host_config=host_config,
            )["Id"]
            sock = api.attach_socket(cid, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            api.start(cid)
            return self.client.containers.get(cid), sock
        except Exception as exc:
            if cid is not None:
                try:
                    api.remove_container(cid, force=True)
                except Exception:
                    pass
            raise SandboxError(f"cannot start a worker container from {self.image!r}: {exc}") from exc

    def _remove_container(self) -> None:
        container, self._container = self._container, None
        if container is not None:
            with _live_lock:
                _unremoved.add(container.id)
        _remove_pending(self.client.api)

    def _open_channel(self) -> Channel:
        self._remove_container()  # one worker per container; a new worker means a new container
        self._container, sock = self._start_worker_container()
        return DockerExecChannel(self, sock)

    def _after_loss(self) -> str | None:
        container = self._container
        if container is None:
            return None
        try:
            container.reload()
            if container.attrs.get("State", {}).get("OOMKilled"):
                return RunStatus.MEMORY_EXCEEDED
        except Exception:
            pass
        return None

    def close(self) -> None:
        if getattr(self, "_closed", True):
            return
        super().close()
        self._remove_container()
        try:
            self.client.close()
        except Exception:
            pass
