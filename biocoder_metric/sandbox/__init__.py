"""Sandboxed execution of generated programs: ``make_sandbox(name) -> Sandbox``.

Backends, safest first: ``docker`` (long-lived locked-down container, code run by exec),
``bwrap`` (bubblewrap namespaces over the host's or the image's root filesystem), ``none``
(no isolation; explicit opt-in only). All three run the same worker, ``runtime/`` (entry ``runtime/worker.py``).
"""

from __future__ import annotations

import functools
import shutil

from biocoder_dataset import settings
from biocoder_metric.errors import SandboxError
from biocoder_metric.sandbox.interface import Sandbox

__all__ = [
    "Sandbox",
    "SandboxError",
    "available_sandboxes",
    "default_sandbox_name",
    "make_sandbox",
    "BACKENDS",
]

BACKENDS = ("docker", "bwrap", "none")


def _docker_ready(image: str | None = None) -> bool:
    try:
        from biocoder_metric.sandbox.docker import docker_ready
    except ImportError:
        return False
    return docker_ready(image)


def _bwrap_ready() -> bool:
    if shutil.which("bwrap") is None:
        return False
    from biocoder_metric.sandbox.bubblewrap import bwrap_works

    return bwrap_works()


def available_sandboxes(image: str | None = None) -> list[str]:
    """Backends usable here, safest first. ``none`` is always listed (it still needs opt-in)."""
    out = []
    if _docker_ready(image):
        out.append("docker")
    if _bwrap_ready():
        out.append("bwrap")
    out.append("none")
    return out


def default_sandbox_name(image: str | None = None) -> str:
    """The safest backend that works here; never ``none`` (that one must be asked for)."""
    for name in available_sandboxes(image):
        if name != "none":
            return name
    raise SandboxError(
        "no sandbox is available: need Docker with the biocoder image (run scripts/setup_docker.sh) "
        "or bubblewrap (apt-get install bubblewrap, and unprivileged user namespaces enabled). "
        "To run generated code unsandboxed anyway, use --sandbox none --allow-unsafe "
        f"(or {settings.ENV_ALLOW_UNSAFE}=1)."
    )


def _reference_image_for_bwrap() -> str | None:
    """The Docker reference image when it exists locally, so bwrap verdicts equal docker's.

    bwrap then runs the image's exported root filesystem (Debian bullseye, the pinned scientific
    stack) instead of the host's Python, whose numpy/scikit-image releases make many real tasks'
    goldens fail. ``image="host"`` or the bwrap-rootfs setting ``host`` keeps the host's root.
    """
    if (settings.env_str(settings.ENV_BWRAP_ROOTFS) or "").lower() == "host":
        return None
    return _local_reference_image()


def _bwrap_rootfs_path() -> str | None:
    """The bwrap-rootfs setting as a path: a root filesystem directory to run bwrap over, without Docker.

    For cluster nodes that have bubblewrap but no Docker: the reference image unpacked once on
    shared storage (``apptainer build --sandbox DIR docker-archive://biocoder-eval.tar``, or
    ``biocoder_metric.sandbox.image.export_rootfs``). ``host`` (or unset) is not a path.
    """
    value = settings.env_str(settings.ENV_BWRAP_ROOTFS)
    return value if value and value.lower() != "host" else None


@functools.lru_cache(maxsize=1)  # asked once per process, not once per pooled sandbox
def _local_reference_image() -> str | None:
    from biocoder_metric.sandbox.image import DEFAULT_IMAGE, ImageError, docker_available, image_id

    try:
        return DEFAULT_IMAGE if docker_available() and image_id(DEFAULT_IMAGE) else None
    except ImageError:
        return None


def make_sandbox(
    name: str | None = None, *, allow_unsafe: bool = False, image: str | None = None, **kw: object
) -> Sandbox:
    """Build a sandbox. ``name=None`` or ``"auto"`` picks :func:`default_sandbox_name`.

    Keyword options: ``warm=False`` (fresh interpreter/JVM per case, for comparison),
    ``batch=False`` (a warm Python job: one forked case process per case instead of one per job),
    ``rootfs=`` (bwrap), ``memory_mb=``/``cpus=`` (docker container limits).
    """
    if name in (None, "", "auto"):
        name = default_sandbox_name(image)
    if name == "none":
        from biocoder_metric.sandbox.none import NoneSandbox

        return NoneSandbox(allow_unsafe=allow_unsafe, **kw)  # type: ignore[arg-type]
    if name == "bwrap":
        from biocoder_metric.sandbox.bubblewrap import BwrapSandbox

        if image is None and kw.get("rootfs") is None:
            if _bwrap_rootfs_path():  # an unpacked reference image on a node without Docker (Slurm)
                kw["rootfs"] = _bwrap_rootfs_path()
            else:
                image = _reference_image_for_bwrap()
        elif image == "host":
            image = None
        return BwrapSandbox.create(image=image, **kw)  # type: ignore[arg-type]
    if name == "docker":
        from biocoder_metric.sandbox.docker import DockerSandbox

        return DockerSandbox(image=image, **kw)  # type: ignore[arg-type]
    raise ValueError(f"unknown sandbox {name!r}; choose one of {', '.join(BACKENDS)} (or 'auto')")
