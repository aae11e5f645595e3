"""The reference execution environment (docker/Dockerfile) and biocoder_metric.sandbox.image.

These run real containers. They skip, saying why, when no Docker engine answers or the
image is not built (``scripts/setup_docker.sh`` builds it); they never build it themselves.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from biocoder_metric.sandbox import image

REPO_ROOT = Path(__file__).resolve().parent.parent
TAG = image.DEFAULT_IMAGE
SANDBOX_UID = 10001
#: How the sandboxes run the image: no network, read-only root, writable tmpfs only.
LOCKED_DOWN = (
    "--network",
    "none",
    "--read-only",
    "--tmpfs",
    "/tmp",
    "--tmpfs",
    f"/work:uid={SANDBOX_UID},gid={SANDBOX_UID}",
)


@pytest.fixture(scope="module")
def image_tag() -> str:
    """The built image's tag, or a skip naming what is missing."""
    if not image.docker_available():
        pytest.skip("no Docker engine answers `docker version`; run scripts/setup_docker.sh to get one")
    if image.image_id(TAG) is None:
        pytest.skip(f"Docker image {TAG!r} is not built; run scripts/setup_docker.sh")
    return TAG


def run_in_image(
    tag: str, *cmd: str, docker_args: tuple[str, ...] = LOCKED_DOWN, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["docker", "run", "--rm", "-i", *docker_args, tag, *cmd],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


VERSIONS_PROBE = r"""
import json, sys
import numpy, scipy, skimage, pandas, pysam, sklearn, Bio
import centrosome, centrosome.cpmorphology, centrosome.filter, centrosome.outline, centrosome.smooth
import centrosome._cpmorphology2  # a compiled extension: proves the wheel's numpy ABI fits numpy 1.19
x = numpy.asfarray([1, 2])
print(json.dumps({
    "python": list(sys.version_info[:3]), "numpy": numpy.__version__, "asfarray": str(x.dtype),
    "scipy": scipy.__version__, "skimage": skimage.__version__, "pandas": pandas.__version__,
    "pysam": pysam.__version__, "sklearn": sklearn.__version__, "biopython": Bio.__version__,
}))
"""


def _version(s: str) -> tuple[int, ...]:
    return tuple(int(p) for p in s.split(".")[:3] if p.isdigit())


@pytest.mark.docker
def test_pinned_python_stack(image_tag: str) -> None:
    proc = run_in_image(image_tag, "python3", "-", stdin=VERSIONS_PROBE)
    assert proc.returncode == 0, proc.stderr
    v = json.loads(proc.stdout)
    assert v["python"][:2] == [3, 9]
    assert _version(v["numpy"]) < (2,) and v["asfarray"] == "float64"
    assert _version(v["skimage"])[:2] == (0, 18), "reduce_noise's golden needs scikit-image 0.18"
    assert _version(v["biopython"]) < (1, 85), "fasta_file_has_protein's golden needs biopython < 1.85"
    # The record baked into the image agrees with what actually imports.
    record = run_in_image(image_tag, "cat", "/opt/biocoder/versions.txt").stdout
    assert f"numpy {v['numpy']}" in record and f"scikit-image {v['skimage']}" in record


@pytest.mark.docker
def test_java_17_compiles_and_runs(image_tag: str) -> None:
    version = run_in_image(image_tag, "javac", "-version")
    assert version.returncode == 0 and version.stdout.split()[1].startswith("17."), (
        version.stdout + version.stderr
    )
    script = (
        "cd /work && printf '%s\\n' 'public class Main { public static void main(String[] a) {"
        ' System.out.println("sum=" + (40 + 2)); } }\' > Main.java && javac Main.java && java -cp . Main'
    )
    proc = run_in_image(image_tag, "sh", "-c", script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "sum=42"


@pytest.mark.docker
def test_runs_as_non_root_with_read_only_root(image_tag: str) -> None:
    proc = run_in_image(
        image_tag,
        "sh",
        "-c",
        "id -u; pwd; touch /work/ok && echo work-writable; touch /usr/x 2>/dev/null || echo root-read-only",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [str(SANDBOX_UID), "/work", "work-writable", "root-read-only"]


@pytest.mark.docker
def test_no_network_inside(image_tag: str) -> None:
    probe = (
        "import socket\n"
        "s = socket.socket()\ns.settimeout(3)\n"
        "try:\n    s.connect(('151.101.0.223', 80))\n    print('connected')\n"  # pypi.org's CDN, by address
        "except OSError as e:\n    print('blocked', e.errno)\n"
    )
    proc = run_in_image(image_tag, "python3", "-", stdin=probe)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("blocked")


@pytest.mark.docker
def test_worker_can_be_bind_mounted(image_tag: str, tmp_path: Path) -> None:
    """The sandbox may mount its own stdlib-only worker instead of relying on the baked-in copy."""
    worker = tmp_path / "worker.py"
    worker.write_text(
        "import json, sys\nfor line in sys.stdin:\n    print(json.dumps({'echo': json.loads(line)}), flush=True)\n"
    )
    worker.chmod(0o644)
    tmp_path.chmod(0o755)
    args = (*LOCKED_DOWN, "-v", f"{worker}:/opt/biocoder/worker.py:ro")
    proc = run_in_image(image_tag, "python3", "/opt/biocoder/worker.py", docker_args=args, stdin='{"x": 1}\n')
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"echo": {"x": 1}}


#: Prints name -> sha256 of the runtime files baked into /opt/biocoder (what runtime_files() selects).
BAKED_RUNTIME_PROBE = r"""
import hashlib, json, os
root = "/opt/biocoder"
print(json.dumps({
    name: hashlib.sha256(open(os.path.join(root, name), "rb").read()).hexdigest()
    for name in sorted(os.listdir(root))
    if os.path.isfile(os.path.join(root, name)) and (name.endswith(".py") or name == "Runner.java")
}))
"""


@pytest.mark.docker
def test_baked_in_runtime_matches_source(image_tag: str) -> None:
    """The image holds the whole runtime folder (worker.py, its sibling modules, Runner.java),
    each file identical to the source, and no module the source no longer has."""
    from biocoder_metric.sandbox.base import runtime_files

    source = runtime_files()
    if "worker.py" not in source:
        pytest.skip(
            "the source tree has no runtime/worker.py yet, so the image has no runtime copy to compare"
        )
    proc = run_in_image(image_tag, "python3", "-", stdin=BAKED_RUNTIME_PROBE)
    assert proc.returncode == 0, proc.stderr
    baked = json.loads(proc.stdout)
    assert "worker.py" in baked, "image has no /opt/biocoder/worker.py; rebuild with scripts/setup_docker.sh"
    expected = {name: hashlib.sha256(data).hexdigest() for name, data in source.items()}
    stale = sorted(name for name in expected.keys() | baked.keys() if expected.get(name) != baked.get(name))
    assert not stale, (
        f"the image's runtime is stale ({', '.join(stale)}); rebuild with scripts/setup_docker.sh"
    )


@pytest.mark.docker
def test_image_lookup_functions(image_tag: str) -> None:
    ident = image.image_id(image_tag)
    assert ident is not None and ident.startswith("sha256:")
    assert image.ensure_image(image_tag) == ident
    assert image.environment_id(image_tag) == ident
    assert image.image_id("biocoder-eval:no-such-tag-for-tests") is None
    with pytest.raises(image.ImageError, match="setup_docker.sh"):
        image.ensure_image("biocoder-eval:no-such-tag-for-tests")


def test_without_docker_cli_errors_say_what_to_do(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no docker command at all
    assert image.docker_available() is False
    with pytest.raises(image.ImageError, match="setup_docker.sh"):
        image.ensure_image("anything:latest")


@pytest.fixture
def rootfs_dest(tmp_path: Path) -> Iterator[Path]:
    """A private export root, deleted afterwards (an export is about 700 MB; pytest keeps tmp dirs)."""
    dest = tmp_path / "rootfs"
    yield dest
    shutil.rmtree(dest, ignore_errors=True)


@pytest.mark.docker
@pytest.mark.slow
def test_export_rootfs_once_atomic_and_runnable(image_tag: str, rootfs_dest: Path) -> None:
    dest = rootfs_dest
    results: list[Path] = []
    errors: list[BaseException] = []

    def export() -> None:
        try:
            results.append(image.export_rootfs(image_tag, dest=dest))
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=export) for _ in range(2)]  # concurrent callers share one export
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    ident = image.image_id(image_tag)
    assert ident is not None
    assert results[0] == results[1] == dest / ident.split(":", 1)[1]
    root = results[0]
    marker = json.loads((root / image.ROOTFS_MARKER).read_text())
    assert marker["image_id"] == ident
    assert [p.name for p in dest.iterdir() if not p.name.endswith(".lock")] == [root.name], (
        "temporary dirs left behind"
    )
    assert (root / "usr" / "bin" / "python3.9").is_file()
    assert root.stat().st_mode & 0o777 == 0o755, "the exported / must be traversable by the sandbox user"
    assert (root / "opt" / "biocoder" / "versions.txt").read_text() == run_in_image(
        image_tag, "cat", "/opt/biocoder/versions.txt"
    ).stdout
    before = (root.stat().st_ino, (root / image.ROOTFS_MARKER).stat().st_mtime_ns)
    assert image.export_rootfs(image_tag, dest=dest) == root
    assert (root.stat().st_ino, (root / image.ROOTFS_MARKER).stat().st_mtime_ns) == before, "exported twice"

    # prune_rootfs deletes exports of images that are gone, and only those.
    stale = dest / ("0" * 64)
    (stale / "usr").mkdir(parents=True)
    (stale / image.ROOTFS_MARKER).write_text(json.dumps({"image_id": "sha256:" + "0" * 64}))
    assert image.prune_rootfs(dest) == [stale]
    assert not stale.exists() and (root / image.ROOTFS_MARKER).is_file()

    # The exported tree is the same environment without Docker: run it under bubblewrap.
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        pytest.skip("bubblewrap not installed; the rootfs was exported but not run")
    cmd = [
        bwrap,
        "--ro-bind",
        str(root),
        "/",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
        "--unshare-all",
        "--unshare-user",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--die-with-parent",
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin:/bin",
        "python3",
        "-c",
        "import os, numpy, skimage; print(os.getuid(), numpy.__version__, skimage.__version__)",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    if proc.returncode != 0 and "Operation not permitted" in proc.stderr:
        pytest.skip(f"bubblewrap cannot create namespaces here: {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr
    versions = dict(line.split(maxsplit=1) for line in marker_lines(root))
    assert proc.stdout.split() == [str(SANDBOX_UID), versions["numpy"], versions["scikit-image"]]


def marker_lines(root: Path) -> list[str]:
    return (root / "opt" / "biocoder" / "versions.txt").read_text().splitlines()
