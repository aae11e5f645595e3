"""The ``bwrap`` backend: the worker runs inside bubblewrap namespaces.

No network (``--unshare-all``), its own pid namespace (so the worker may ``kill(-1)`` after
each case), a non-root uid, a read-only root, fresh tmpfs ``/tmp`` and ``/work``, a minimal
``/dev`` and ``/proc``, no host ``HOME`` and a clean environment (no tokens).

Two root filesystems:

* ``rootfs=None``: the host's ``/usr`` (plus the merged-``/usr`` links), a few harmless
  ``/etc`` files and the running interpreter's prefix, read-only. Good for stdlib-only
  programs and development.
* ``rootfs=PATH``: a whole exported root filesystem, normally the Docker image's
  (``make_sandbox("bwrap", image=...)`` exports it once), so bwrap and docker run the same
  software and share golden outputs (same :attr:`environment_id`).

Note: when bwrap runs as host root, the sandbox uid maps to host uid 0 (bwrap can map only
the caller's uid), so file-permission checks inside see root as owner; that is why only
non-secret paths are bound, and all of them read-only.
"""

from __future__ import annotations

import functools
import itertools
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from biocoder_metric.sandbox.base import (
    CONTAINER_PATH,
    Channel,
    ProcessChannel,
    SandboxError,
    WorkerSandbox,
    clean_env,
    prepared_runtime_dir,
)

#: Where the worker and the Java runner appear inside the sandbox (read-only).
RUNTIME_MOUNT = "/run/biocoder"
WORKROOT = "/work/.cases"
#: /etc entries the host-rootfs sandbox needs (dynamic linker, users, time zone, Java config).
HOST_ETC = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "localtime",
    "nsswitch.conf",
    "passwd",
    "group",
    "mime.types",
)
HOST_UID = 65534  # nobody
IMAGE_UID = 10001  # the image's "sandbox" user (docker/Dockerfile)
_cgroup_seq = itertools.count()


@functools.lru_cache(maxsize=1)
def bwrap_works() -> bool:
    """True if bubblewrap can create the namespaces we need here (user namespaces enabled)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return False
    argv = [exe, "--unshare-all", "--unshare-user", "--die-with-parent", "--ro-bind", "/usr", "/usr"]
    argv += _merged_usr_links() + ["--proc", "/proc", "--dev", "/dev", "true"]
    try:
        return subprocess.run(argv, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _merged_usr_links() -> list[str]:
    """Recreate the host's /bin, /lib... as symlinks (merged /usr) or read-only binds."""
    args: list[str] = []
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    return args


def _python_prefixes(python: str) -> list[str]:
    """Dirs outside /usr that the host interpreter needs (pyenv, a venv, conda)."""
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    real = os.path.realpath(python)
    prefixes.add(str(Path(real).parent.parent))
    out = []
    for p in sorted(prefixes):
        if p and not p.startswith("/usr/") and p != "/usr" and os.path.isdir(p):
            out.append(p)
    return out


def _own_package_dirs() -> list[str]:
    """Where this project's packages live (they hold task data such as the demo goldens)."""
    import biocoder_dataset
    import biocoder_metric

    return sorted(
        {os.path.realpath(os.path.dirname(m.__file__ or "")) for m in (biocoder_dataset, biocoder_metric)}
    )


def _own_cgroup(controller: str) -> str:
    """This process's cgroup (relative) for a v1 controller, or the v2 one for ``""``: the
    sandbox's cgroup is created below it, so limits set on us (e.g. by a CI runner) still apply."""
    try:
        with open("/proc/self/cgroup") as fh:
            for line in fh:
                _, ctrls, path = line.rstrip("\n").split(":", 2)
                if (controller and controller in ctrls.split(",")) or (not controller and ctrls == ""):
                    return path.lstrip("/")
    except (OSError, ValueError):
        pass
    return ""


class CgroupLimits:
    """Best-effort pids/memory cgroup around one bwrap sandbox.

    Needed when bwrap runs as host root: root is exempt from RLIMIT_NPROC, so without a pids
    cgroup a fork or thread bomb is bounded only by the time limit. Used only where the cgroup
    file system is writable (root, v1 or v2); elsewhere the worker's rlimits are the limits
    (for a normal user RLIMIT_NPROC counts only the sandbox's own user namespace).
    """

    def __init__(self, dirs: list[Path]):
        self.dirs = dirs

    @classmethod
    def create(cls, *, pids_max: int, memory_mb: int) -> CgroupLimits | None:
        if os.geteuid() != 0:
            return None
        name = f"biocoder-{os.getpid()}-{next(_cgroup_seq)}"
        base = Path("/sys/fs/cgroup")
        made: list[Path] = []
        try:
            if (base / "cgroup.controllers").is_file():  # v2
                path = base / _own_cgroup("") / name
                path.mkdir()
                made.append(path)
                (path / "pids.max").write_text(str(pids_max))
                (path / "memory.max").write_text(str(memory_mb << 20))
            else:  # v1: one dir per controller
                for ctrl, key, value in (
                    ("pids", "pids.max", str(pids_max)),
                    ("memory", "memory.limit_in_bytes", str(memory_mb << 20)),
                ):
                    if not (base / ctrl / "cgroup.procs").is_file():
                        continue
                    path = base / ctrl / _own_cgroup(ctrl) / name
                    path.mkdir()
                    made.append(path)
                    (path / key).write_text(value)
        except OSError:
            cls(made).remove()
            return None
        return cls(made) if made else None

    @property
    def limits_pids(self) -> bool:
        """True when one of the cgroups caps the process count (v1 may lack the pids controller)."""
        return any((d / "pids.max").is_file() for d in self.dirs)

    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    def remove(self) -> None:
        for d in self.dirs:
            for _ in range(100):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # its processes are still exiting
                    time.sleep(0.02)
        self.dirs = []


class BwrapSandbox(WorkerSandbox):
    """Runs the worker under bubblewrap; see the module docstring for the mount layout."""

    name = "bwrap"

    def __init__(
        self,
        *,
        rootfs: str | os.PathLike[str] | None = None,
        warm: bool = True,
        environment: str | None = None,
        python: str | None = None,
        tmpfs_mb: int = 1024,
        pids_limit: int = 256,
        memory_mb: int = 4096,
        batch: bool = True,
        **_ignored: object,
    ):
        if not bwrap_works():
            raise SandboxError(
                "bubblewrap is not usable here: install it (apt-get install bubblewrap) and make sure "
                "unprivileged user namespaces are enabled (sysctl kernel.unprivileged_userns_clone=1), "
                "or use --sandbox docker"
            )
        super().__init__(warm=warm, batch=batch)
        self.rootfs = Path(rootfs) if rootfs is not None else None
        if self.rootfs is not None and not (self.rootfs / "usr").is_dir():
            raise SandboxError(f"{self.rootfs} does not look like a root filesystem (no usr/ inside)")
        self.python = python or ("/usr/bin/python3" if self.rootfs is not None else sys.executable)
        self.tmpfs_bytes = int(tmpfs_mb) << 20
        self._env_override = environment
        self._runtime = prepared_runtime_dir()
        self._cgroup = CgroupLimits.create(pids_max=pids_limit, memory_mb=memory_mb)

    @classmethod
    def create(
        cls, *, image: str | None = None, rootfs: str | os.PathLike[str] | None = None, **kw: object
    ) -> BwrapSandbox:
        """``image`` given: run that Docker image's root filesystem (exported once, cached)."""
        environment = None
        if image is not None and rootfs is None:
            from biocoder_metric.sandbox.image import export_rootfs, image_id

            try:
                ident = image_id(image)
            except Exception as exc:  # ImageError: no engine
                raise SandboxError(f"bwrap needs the root filesystem of image {image!r}, but: {exc}") from exc
            if ident is None:
                raise SandboxError(f"image {image!r} not found; build it with scripts/setup_docker.sh")
            rootfs = export_rootfs(image)
            environment = f"image:{ident}"
        return cls(rootfs=rootfs, environment=environment, **kw)  # type: ignore[arg-type]

    def _describe(self) -> str:
        return f"bwrap ({self.rootfs or 'host rootfs'})"

    def stats(self) -> dict[str, object]:
        """:meth:`WorkerSandbox.stats` plus ``rootfs`` (None: the host's), ``python`` (the
        interpreter inside) and ``cgroup`` (whether a pids/memory cgroup wraps the sandbox)."""
        return {
            **super().stats(),
            "rootfs": str(self.rootfs) if self.rootfs is not None else None,
            "python": self.python,
            "cgroup": self._cgroup is not None,
        }

    @property
    def environment_id(self) -> str:
        if self._env_override:
            return self._env_override
        return super().environment_id

    def bwrap_argv(self) -> list[str]:
        """The full bubblewrap command line (exposed for tests and debugging)."""
        exe = shutil.which("bwrap") or "bwrap"
        uid = IMAGE_UID if self.rootfs is not None else HOST_UID
        # --as-pid-1: the (non-dumpable) worker itself is pid 1. Otherwise bwrap's own init is
        # pid 1, runs as the sandbox uid, and a case could write into the protocol pipe through
        # /proc/1/fd/1. As pid 1 the worker also cannot be killed from inside the sandbox.
        argv = [exe, "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--as-pid-1"]
        argv += ["--uid", str(uid), "--gid", str(uid), "--hostname", "sandbox", "--cap-drop", "ALL"]
        if self.rootfs is not None:
            argv += ["--ro-bind", str(self.rootfs), "/"]
            path = CONTAINER_PATH
        else:
            argv += ["--ro-bind", "/usr", "/usr"] + _merged_usr_links()
            for name in HOST_ETC:
                if os.path.exists(f"/etc/{name}"):
                    argv += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
            for jdk_conf in sorted(Path("/etc").glob("java-*")):
                argv += ["--ro-bind", str(jdk_conf), str(jdk_conf)]
            prefixes = _python_prefixes(self.python)
            for prefix in prefixes:
                argv += ["--ro-bind", prefix, prefix]
            # This project installed (not editable) into a bound prefix ships task data (the demo
            # goldens, harness files): hide it, candidates must find no golden on any path.
            for own in _own_package_dirs():
                if any(own == p or own.startswith(p.rstrip("/") + "/") for p in prefixes):
                    argv += ["--tmpfs", own]
            path = f"{Path(self.python).parent}:{CONTAINER_PATH}"
        argv += ["--proc", "/proc", "--dev", "/dev"]
        # Every writable place is a size-capped tmpfs; /dev itself (bwrap's tmpfs) goes read-only.
        shm = str(min(self.tmpfs_bytes, 256 << 20))
        # POSIX message queues outlive their processes in the sandbox's IPC namespace; mounting
        # the namespace's mqueue file system makes them visible, so the per-case reset removes them.
        argv += ["--size", shm, "--perms", "1777", "--tmpfs", "/dev/shm", "--mqueue", "/dev/mqueue"]
        argv += ["--remount-ro", "/dev"]
        for tmp, perms in (("/tmp", "1777"), ("/var/tmp", "1777"), ("/work", "0755")):
            argv += ["--size", str(self.tmpfs_bytes), "--perms", perms, "--tmpfs", tmp]
        argv += ["--tmpfs", "/run", "--ro-bind", str(self._runtime), RUNTIME_MOUNT, "--remount-ro", "/run"]
        if self.rootfs is None:
            argv += ["--remount-ro", "/"]
        argv += ["--chdir", "/work", "--clearenv"]
        for key, value in clean_env({"HOME": "/tmp"}, path=path).items():
            argv += ["--setenv", key, value]
        argv += ["--", self.python, "-s", f"{RUNTIME_MOUNT}/worker.py", "--contained", "--workroot", WORKROOT]
        argv += ["--python", self.python]
        if self._cgroup is not None and self._cgroup.limits_pids:  # RLIMIT_NPROC is per host uid
            argv += ["--max-procs", "0"]
        if (self._runtime / "Runner.class").is_file():
            argv += ["--runtime-dir", RUNTIME_MOUNT]
        return argv

    def _open_channel(self) -> Channel:
        # bwrap's --clearenv handles the inside; the bwrap process itself needs nothing either.
        argv = self.bwrap_argv()
        procs = self._cgroup.procs_files() if self._cgroup else []
        if procs:  # enter the cgroup first, then become bwrap: nothing escapes the limits
            joins = " && ".join(f'echo $$ > "{p}"' for p in procs)
            argv = ["/bin/sh", "-c", f'{joins} && exec "$@"', "sh", *argv]
        return ProcessChannel(argv, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})

    def close(self) -> None:
        super().close()
        if getattr(self, "_cgroup", None):
            self._cgroup.remove()
            self._cgroup = None
