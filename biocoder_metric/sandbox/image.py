"""The reference execution environment: the ``biocoder-eval`` Docker image and its root filesystem.

Golden and candidate programs must run in the very same software environment, or
library-version differences (numeric formatting, algorithms) show up as "wrong
answers". The image built from ``docker/Dockerfile`` (by ``scripts/setup_docker.sh``)
is that environment. The Docker sandbox runs it directly; the bubblewrap sandbox runs
the same files without Docker at run time, from a root filesystem exported once here.
The image id is the environment's identity (:func:`environment_id`), used in golden
output cache keys.

Everything goes through the ``docker`` CLI (no SDK import): it honours ``DOCKER_HOST``
and docker contexts exactly as ``scripts/setup_docker.sh`` does, and this module stays
importable where Docker is absent.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

from biocoder_dataset import settings

#: The image every sandbox uses unless told otherwise (the image setting overrides the default).
DEFAULT_IMAGE = settings.env_str(settings.ENV_IMAGE, settings.IMAGE)
#: Where the image lives in the repository, and how to build it (quoted in errors).
SETUP_HINT = "build it with `scripts/setup_docker.sh` (see docker/README.md)"
#: Written last into an exported root filesystem: its presence marks a complete export.
ROOTFS_MARKER = ".biocoder-rootfs.json"

_DOCKER_TIMEOUT_S = 30.0


class ImageError(RuntimeError):
    """Docker or the reference image is not usable; the message says what to do."""


def _docker(*args: str, timeout: float | None = _DOCKER_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    """Run one docker CLI command; raises ImageError when the CLI itself is missing."""
    exe = shutil.which("docker")
    if exe is None:
        raise ImageError(f"the `docker` command is not installed; {SETUP_HINT}")
    try:
        return subprocess.run([exe, *args], capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise ImageError(f"`docker {' '.join(args)}` did not answer within {timeout:.0f} s") from exc


def docker_available() -> bool:
    """True when a Docker engine answers (CLI present and ``docker version`` reaches the server)."""
    try:
        proc = _docker("version", "--format", "{{.Server.Version}}", timeout=15)
    except ImageError:
        return False
    return proc.returncode == 0 and bool(proc.stdout.strip())


def image_id(tag: str = DEFAULT_IMAGE) -> str | None:
    """The image's id (``sha256:...``), or None when the engine has no such image.

    Raises ImageError when no engine answers, so "image missing" and "Docker
    missing" are never confused.
    """
    proc = _docker("image", "inspect", "--format", "{{.Id}}", tag)
    if proc.returncode == 0:
        return proc.stdout.strip() or None
    if "no such image" in proc.stderr.lower() or "no such object" in proc.stderr.lower():
        return None
    raise ImageError(f"cannot inspect image {tag!r}: {proc.stderr.strip() or 'docker image inspect failed'}")


def ensure_image(tag: str = DEFAULT_IMAGE) -> str:
    """The id of ``tag``, or an ImageError saying how to get the engine / build the image."""
    if not docker_available():
        raise ImageError(
            "no Docker engine is reachable (`docker version` fails); start one or run "
            f"`scripts/setup_docker.sh`, which starts dockerd and builds the image {tag!r}"
        )
    found = image_id(tag)
    if found is None:
        raise ImageError(
            f"Docker image {tag!r} not found; {SETUP_HINT}, or set {settings.ENV_IMAGE} to an existing tag"
        )
    return found


def environment_id(tag: str = DEFAULT_IMAGE) -> str:
    """The identity of the execution environment: the image id (part of golden cache keys)."""
    return ensure_image(tag)


def _id_dirname(image: str) -> str:
    return image.split(":", 1)[-1]


def _skip_special(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
    """Extraction filter: no device nodes or FIFOs (bwrap mounts its own /dev); the rest goes
    through tarfile's ``tar`` filter (no paths outside ``path``; setuid and group/other-write
    bits cleared, which a sandbox root wants anyway)."""
    if member.isdev():
        return None
    return tarfile.tar_filter(member, path)


def _extract_container(container: str, into: Path) -> None:
    """Stream ``docker export`` straight into ``into`` (no intermediate tarball on disk)."""
    exe = shutil.which("docker")
    assert exe is not None  # checked by the caller through ensure_image
    with subprocess.Popen([exe, "export", container], stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        try:
            with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
                if hasattr(tarfile, "tar_filter"):  # Python >= 3.10.12 / 3.11.4
                    tar.extractall(into, filter=_skip_special)
                else:  # older: no filter API; docker export holds no paths outside the root
                    tar.extractall(into, members=(m for m in tar if not m.isdev()))
        except (tarfile.TarError, OSError) as exc:
            proc.kill()
            raise ImageError(f"extracting `docker export {container}` into {into} failed: {exc}") from exc
        finally:
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            proc.wait()
        if proc.returncode != 0:
            raise ImageError(f"`docker export {container}` failed: {err.strip()}")


def export_rootfs(tag: str = DEFAULT_IMAGE, dest: Path | str | None = None) -> Path:
    """The image's root filesystem as a directory, exported once per image id.

    Layout: ``<dest or the cache's rootfs folder>/<image id hex>/``, with ``ROOTFS_MARKER``
    (image id, tag, time) inside. The export happens in a temporary sibling directory
    that is renamed into place only when complete, under a lock file, so concurrent
    callers and interrupted exports never see a half-written tree. A rebuilt image gets
    a new id and so a new directory; old ones are left for the user to delete.
    """
    ident = ensure_image(tag)
    root = Path(dest) if dest is not None else settings.cache_dir("rootfs")
    final = root / _id_dirname(ident)
    if (final / ROOTFS_MARKER).is_file():
        return final
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f".{_id_dirname(ident)}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a concurrent exporter finishes first; then we reuse its result
        if (final / ROOTFS_MARKER).is_file():
            return final
        if final.exists():  # left by something other than this function: not trusted
            raise ImageError(
                f"{final} exists but is not a complete export (no {ROOTFS_MARKER}); delete it and retry"
            )
        tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{_id_dirname(ident)[:12]}-", dir=root))
        tmp.chmod(0o755)  # it becomes "/": mkdtemp's 0700 would lock the sandbox user out of everything
        container = ""
        try:
            created = _docker("create", "--network", "none", ident, "true")
            if created.returncode != 0:
                raise ImageError(f"`docker create {tag}` failed: {created.stderr.strip()}")
            container = created.stdout.strip()
            _extract_container(container, tmp)
            (tmp / ROOTFS_MARKER).write_text(
                json.dumps(
                    {
                        "image_id": ident,
                        "tag": tag,
                        "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    }
                )
                + "\n"
            )
            os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        finally:
            if container:
                _docker("rm", "-f", container)
    return final


def prune_rootfs(dest: Path | str | None = None) -> list[Path]:
    """Delete exported root filesystems whose image no longer exists; returns what was deleted.

    Each rebuilt image gets a new id and so a new export (about 700 MB); old ones are
    only removed on request, because a running sandbox may still be using one.
    """
    root = Path(dest) if dest is not None else settings.cache_dir("rootfs")
    removed: list[Path] = []
    if not root.is_dir():
        return removed
    for entry in sorted(root.iterdir()):
        marker = entry / ROOTFS_MARKER
        if entry.name.startswith(".") or not marker.is_file():
            continue
        ident = json.loads(marker.read_text()).get("image_id", "")
        if not ident or image_id(ident) is None:  # image_id raises if the engine is down: nothing deleted
            shutil.rmtree(entry)
            (root / f".{entry.name}.lock").unlink(missing_ok=True)
            removed.append(entry)
    return removed
