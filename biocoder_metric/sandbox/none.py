"""The ``none`` backend: the worker runs as a plain host subprocess. No isolation at all.

Only for trusted code or for machines without bubblewrap/Docker, and only after an explicit
opt-in: the candidate's program can read and write anything the user can. The worker still
enforces timeouts, rlimits and output limits, and kills the case's leftover processes (its
own descendants only: it must never touch the user's other processes).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

from biocoder_dataset import settings
from biocoder_metric.sandbox.base import (
    Channel,
    ProcessChannel,
    SandboxError,
    WorkerSandbox,
    clean_env,
    prepared_runtime_dir,
)

UNSAFE_ENV = settings.ENV_ALLOW_UNSAFE


def unsafe_allowed(allow_unsafe: bool) -> bool:
    """Whether running model code unsandboxed was opted into, by the argument or the environment.

    The environment: :data:`UNSAFE_ENV` ``=1``, or ``HF_ALLOW_CODE_EVAL=1`` as ``evaluate``'s
    ``code_eval`` users set it (``biocoder_dataset.settings.allow_unsafe_from_env``).
    """
    return allow_unsafe or settings.allow_unsafe_from_env()


class NoneSandbox(WorkerSandbox):
    """Host execution with the worker's limits but no isolation (needs ``allow_unsafe``)."""

    name = "none"

    def __init__(
        self,
        *,
        allow_unsafe: bool = False,
        warm: bool = True,
        python: str | None = None,
        batch: bool = True,
        **_ignored: object,
    ):
        if not unsafe_allowed(allow_unsafe):
            raise SandboxError(
                "the 'none' sandbox runs untrusted generated code directly on this machine with your "
                "permissions; refusing without an explicit opt-in. Pass --allow-unsafe (CLI), "
                f"allow_unsafe=True (API) or set {UNSAFE_ENV}=1 (or {settings.ENV_HF_ALLOW_CODE_EVAL}=1) - "
                "or use a real sandbox: install bubblewrap ('bwrap') or Docker (see scripts/setup_docker.sh)."
            )
        super().__init__(warm=warm, batch=batch)
        self.python = python or sys.executable
        self._runtime = prepared_runtime_dir()
        self._home = tempfile.mkdtemp(prefix="biocoder-none-")

    def _open_channel(self) -> Channel:
        workroot = tempfile.mkdtemp(prefix="work-", dir=self._home)
        env = clean_env(
            {"HOME": self._home, "TMPDIR": workroot}, path=os.environ.get("PATH", "/usr/bin:/bin")
        )
        argv = [
            self.python,
            "-s",
            str(self._runtime / "worker.py"),
            "--workroot",
            workroot,
            "--python",
            self.python,
        ]
        if (self._runtime / "Runner.class").is_file():
            argv += ["--runtime-dir", str(self._runtime)]
        return ProcessChannel(argv, env, cwd=workroot)

    def stats(self) -> dict[str, object]:
        """:meth:`WorkerSandbox.stats` plus ``python``, the host interpreter running the cases."""
        return {**super().stats(), "python": self.python}

    def close(self) -> None:
        super().close()
        home = getattr(self, "_home", None)
        if home:
            shutil.rmtree(home, ignore_errors=True)
