"""Registry of the pinned upstream files, and where to find them on this machine.

Every config is built only from the files listed here. Each entry pins the upstream
location (repository + commit or Hub revision) and, where it can be known offline, the
file's sha256, so a rebuilt dataset is byte-for-byte the same data or the build stops
with an error naming the file and both digests.

Files are found, in this order:

1. ``source_dir`` (argument, ``--source-dir``) or the ``BIOCODER_SOURCE_DIR`` environment
   variable: a folder laid out like ``../shared/biocoder-upstream`` (see
   :attr:`SourceFile.local_path`);
2. otherwise they are downloaded once into a cache (``BIOCODER_CACHE_DIR``, default
   ``~/.cache/biocoder-eval/sources``) and verified before use.

``verify=False`` or ``BIOCODER_SKIP_CHECKSUM=1`` skip the sha256 check (development only).

The two Hugging Face files of ``lilbillbiscuit/biocoder_public`` could not be read when
these pins were made, so their sha256 cannot be known offline: a local copy is used as
is, and a download is checked against the sha256 the Hub reports for the LFS object.
They are optional in a source dir (the configs that use them are still built without).
``lilbillbiscuit/biocoder_hidden`` is registered for reference only: it holds prompts
and reference outputs of the hidden set without test harnesses, so no config reads it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from biocoder_dataset._rosalind_table import ROSALIND_TABLE
from biocoder_dataset.errors import ChecksumError, SourceFileError

BIOCODER_REPO = "gersteinlab/BioCoder"
#: BioCoder ``main`` when the Java metadata files, ``rosalind.json`` and the Rosalind test cases were pinned.
HEAD_COMMIT = "4f597e098198cf10574d10e59c975d1c15d82370"
#: The 2023-08-17 commit whose ``datasets/`` holds the full golden sets of every config.
D1C922E_COMMIT = "d1c922edba233dfa42b84ca06896f3d24ea7dd30"
ADAPTERS_REPO = "joe1chief/adapters"
ADAPTERS_COMMIT = "479ef7cb81f20162488f474fa5133a26ab137a93"
HF_PUBLIC_REPO = "lilbillbiscuit/biocoder_public"
HF_PUBLIC_REVISION = "07a39549d6f6145f72954f15da205f55ae33f6f6"
#: Registered for reference; no config reads it (see the module docstring).
HF_HIDDEN_REPO = "lilbillbiscuit/biocoder_hidden"

ENV_SOURCE_DIR = "BIOCODER_SOURCE_DIR"
ENV_SKIP_CHECKSUM = "BIOCODER_SKIP_CHECKSUM"
ENV_CACHE_DIR = "BIOCODER_CACHE_DIR"


@dataclass(frozen=True)
class SourceFile:
    """One pinned upstream file."""

    name: str  # registry key; also what the ``source`` column records
    host: str  # "github" or "hf"
    repo: str  # owner/name
    revision: str  # commit sha (GitHub) or Hub revision
    path: str  # path inside the upstream repository
    local_path: str  # path inside a source dir laid out like ../shared/biocoder-upstream
    sha256: str | None  # None: not knowable offline (Hub files; checked against the Hub's LFS sha256)
    optional: bool = False  # a source dir may lack it; the configs are then built without it

    @property
    def url(self) -> str:
        """Where the file is downloaded from."""
        if self.host == "github":
            return f"https://raw.githubusercontent.com/{self.repo}/{self.revision}/{self.path}"
        return f"https://huggingface.co/datasets/{self.repo}/resolve/{self.revision}/{self.path}"


def _github(name: str, commit: str, path: str, local_path: str, sha256: str, repo: str = BIOCODER_REPO) -> SourceFile:
    return SourceFile(name, "github", repo, commit, path, local_path, sha256)


_ENTRIES: tuple[SourceFile, ...] = (
    _github("github-head/java_public", HEAD_COMMIT, "datasets/java_public.json", "github-head/java_public.json",
            "510cdc6c68ef086f18705e8a662892f09e111a1283c73631c8715a394608bc6c"),
    _github("github-head/java_similar", HEAD_COMMIT, "datasets/java_similar.json", "github-head/java_similar.json",
            "e6e2d67e02bf5586ce98557f93d649036b4b915f0714f06637d77759237bdc2d"),
    _github("github-head/rosalind", HEAD_COMMIT, "datasets/rosalind.json", "github-head/rosalind.json",
            "9f82136935f832e8cb40e634817dbac74f0ca7b923acf0ec08d111bb4b8a4c70"),
    _github("github-d1c922e/python_public", D1C922E_COMMIT, "datasets/python_public.json", "github-d1c922e/python_public.json",
            "3e0ae80efa83253675aed34f71b2d7c1d470e449fff247f31603b3a1a0b606a8"),
    _github("github-d1c922e/python_hidden", D1C922E_COMMIT, "datasets/python_hidden.json", "github-d1c922e/python_hidden.json",
            "2047c642c0d7a8341be6c34a90c1d4b27ebd69bddeabc65d444b713908d6c97c"),
    _github("github-d1c922e/python_similar", D1C922E_COMMIT, "datasets/python_similar.json", "github-d1c922e/python_similar.json",
            "a66831df66df9243b35692496826161d3b51b6ee5014d9edc4779fa9dafd0c2b"),
    _github("github-d1c922e/java_public", D1C922E_COMMIT, "datasets/java_public.json", "github-d1c922e/java_public.json",
            "096bb6a32ed19177189636e99f847de5bd42df19167cef813aa1460825577ec7"),
    _github("github-d1c922e/java_similar", D1C922E_COMMIT, "datasets/java_similar.json", "github-d1c922e/java_similar.json",
            "3f708351d406fe1db727eda1513d4c46e7c264dd4c8f2cf59c1cad6652d4c907"),
    _github("github-d1c922e/java_hidden", D1C922E_COMMIT, "datasets/java_hidden.json", "github-d1c922e/java_hidden.json",
            "4b6658ad79de53a6c70223877b8ed8c8847a7c6c0ccc1c3c70ec9d4a1d79c753"),
    _github("github-d1c922e/rosalind", D1C922E_COMMIT, "datasets/rosalind.json", "github-d1c922e/rosalind.json",
            "9f82136935f832e8cb40e634817dbac74f0ca7b923acf0ec08d111bb4b8a4c70"),
    _github("python-harness/tasks", ADAPTERS_COMMIT, "src/biocoder/src/biocoder/data/biocoder_tasks.json",
            "python-harness/tasks.json", "f626fecf2897954fe8fda10433f9e839c73ce3cdf59b775dfb57a152c1bb4607",
            repo=ADAPTERS_REPO),
    SourceFile("hf-biocoder_public/biocoder", "hf", HF_PUBLIC_REPO, HF_PUBLIC_REVISION, "biocoder.json",
               "hf-biocoder_public/biocoder.json", None, optional=True),
    SourceFile("hf-biocoder_public/test_combined", "hf", HF_PUBLIC_REPO, HF_PUBLIC_REVISION, "test_combined.json",
               "hf-biocoder_public/test_combined.json", None, optional=True),
)

#: Registry name -> entry (the Rosalind test cases are generated by :func:`rosalind_testcase`).
REGISTRY: dict[str, SourceFile] = {e.name: e for e in _ENTRIES}

_PINNED_TESTCASES: dict[str, tuple[str, str]] = {pid: (sha_in, sha_sol) for pid, _, _, sha_in, sha_sol in ROSALIND_TABLE}


def rosalind_testcase(problem_id: str, solution: bool) -> SourceFile:
    """The input (``solution=False``) or expected-output file of one Rosalind problem.

    Optional in a source dir: a problem whose files are absent is kept as a non-executable row.
    """
    fname = f"rosalind_{problem_id}{'sol' if solution else ''}.txt"
    sha = _PINNED_TESTCASES.get(problem_id, (None, None))[1 if solution else 0]
    return SourceFile(f"rosalind-testcases/{fname}", "github", BIOCODER_REPO, HEAD_COMMIT,
                      f"evaluation/TestRosalind/testcases/{fname}", f"rosalind-testcases/{fname}", sha,
                      optional=True)


def all_sources() -> list[SourceFile]:
    """Every pinned file, Rosalind test cases included (e.g. to pre-fetch a cache)."""
    out = list(_ENTRIES)
    for pid, *_ in ROSALIND_TABLE:
        out += [rosalind_testcase(pid, False), rosalind_testcase(pid, True)]
    return out


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


#: (path, size, mtime_ns) -> sha256: each file is hashed once per process, not once per config.
_HASH_MEMO: dict[tuple[str, int, int], str] = {}


def _memo_sha256(path: Path) -> str:
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _HASH_MEMO:
        _HASH_MEMO[key] = sha256_file(path)
    return _HASH_MEMO[key]


def verify_file(path: Path, entry: SourceFile) -> None:
    """Raise :class:`ChecksumError` naming the file and both digests when ``path`` is not the pinned file."""
    if entry.sha256 is None:
        return
    actual = _memo_sha256(path)
    if actual != entry.sha256:
        raise ChecksumError(
            f"{path}: sha256 mismatch for upstream file {entry.name!r}: expected {entry.sha256}, got {actual} "
            f"(truncated, corrupted or from another revision; fetch it again from {entry.url}, "
            f"or set {ENV_SKIP_CHECKSUM}=1 to skip checksums during development)"
        )


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes")


class SourceResolver:
    """Turns registry entries into local paths: from a source dir, or downloaded and cached.

    One resolver is made per build so the choice of source (and of checksum checking) is
    made once, explicitly, instead of by each reader.
    """

    def __init__(self, source_dir: str | os.PathLike | None = None, verify: bool | None = None,
                 cache_dir: str | os.PathLike | None = None) -> None:
        if source_dir is None and os.environ.get(ENV_SOURCE_DIR):
            source_dir = os.environ[ENV_SOURCE_DIR]
        self.source_dir = Path(source_dir) if source_dir is not None else None
        if self.source_dir is not None and not self.source_dir.is_dir():
            raise SourceFileError(f"source dir {self.source_dir} does not exist or is not a folder "
                                  f"(expected a folder laid out like biocoder-upstream: github-head/, github-d1c922e/, ...)")
        self.verify = (not _env_flag(ENV_SKIP_CHECKSUM)) if verify is None else verify
        default_cache = Path(os.environ.get(ENV_CACHE_DIR) or Path.home() / ".cache" / "biocoder-eval" / "sources")
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache

    @property
    def offline(self) -> bool:
        """True when files come from a local source dir (never from the network)."""
        return self.source_dir is not None

    def describe(self) -> str:
        """Human-readable origin, for messages and the dataset card."""
        return str(self.source_dir) if self.source_dir else f"downloads cached in {self.cache_dir}"

    def path(self, entry: SourceFile) -> Path | None:
        """The verified local file for ``entry``; ``None`` only for an optional file absent from a source dir."""
        if self.source_dir is not None:
            p = self.source_dir / entry.local_path
            if not p.is_file():
                if entry.optional:
                    return None
                raise SourceFileError(
                    f"{p}: upstream file {entry.name!r} is missing from source dir {self.source_dir} "
                    f"(expected it at {entry.local_path}; upstream: {entry.url})"
                )
            if self.verify:
                verify_file(p, entry)
            return p
        return self._download(entry)

    # -- network path (never used by the tests: they pass a source dir) --------------------------
    def _download(self, entry: SourceFile) -> Path:
        if entry.host == "hf":
            return self._download_hf(entry)
        target = self.cache_dir / entry.repo.replace("/", "__") / entry.revision / entry.path
        if target.is_file():
            try:
                if self.verify:
                    verify_file(target, entry)
                return target
            except ChecksumError:
                target.unlink()  # a stale or interrupted download: fetch again
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".part-")
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(entry.url, timeout=60) as resp:
                shutil.copyfileobj(resp, out)
            if self.verify:
                verify_file(Path(tmp), entry)
            os.replace(tmp, target)
        except (urllib.error.URLError, OSError) as exc:
            raise SourceFileError(f"could not download upstream file {entry.name!r} from {entry.url}: {exc} "
                                  f"(no network? pass --source-dir / set {ENV_SOURCE_DIR} to a local copy)") from exc
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return target

    def _download_hf(self, entry: SourceFile) -> Path:
        """Download from the Hub at the pinned revision and check the LFS sha256 the Hub reports."""
        try:
            from huggingface_hub import HfApi, hf_hub_download

            local = Path(hf_hub_download(entry.repo, entry.path, repo_type="dataset", revision=entry.revision))
            infos = HfApi().get_paths_info(entry.repo, [entry.path], repo_type="dataset", revision=entry.revision)
        except Exception as exc:  # huggingface_hub raises many types (offline, 404, auth)
            raise SourceFileError(f"could not download {entry.name!r} ({entry.url}): {exc} "
                                  f"(pass --source-dir with {entry.local_path} to use a local copy)") from exc
        info = infos[0] if infos else None
        lfs = getattr(info, "lfs", None)
        if self.verify and lfs is not None:
            actual = sha256_file(local)
            if actual != lfs.sha256:
                raise ChecksumError(f"{local}: sha256 mismatch for {entry.name!r}: the Hub reports {lfs.sha256}, "
                                    f"the downloaded file has {actual}")
        elif self.verify and getattr(info, "blob_id", None):  # a plain git file: compare the git blob id
            data = local.read_bytes()
            actual = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
            if actual != info.blob_id:
                raise ChecksumError(f"{local}: git blob id mismatch for {entry.name!r}: the Hub reports "
                                    f"{info.blob_id}, the downloaded file has {actual}")
        return local
