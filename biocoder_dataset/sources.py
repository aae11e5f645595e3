"""Registry of the pinned upstream files, and where to find them on this machine.

Every config is built only from the files listed here. Each entry pins the upstream
location (repository + commit or Hub revision) and, where it can be known offline, the
file's sha256, so a rebuilt dataset is byte-for-byte the same data or the build stops
with an error naming the file and both digests.

Files are found, in this order:

1. ``source_dir`` (argument, ``--source-dir``) or the source-dir environment variable
   (:mod:`biocoder_dataset.settings`): a folder laid out like ``../shared/biocoder-upstream``
   (see :attr:`SourceFile.local_path`);
2. otherwise they are downloaded once into the ``sources`` folder of the cache root and
   verified before use.

``verify=False`` or the skip-checksum setting skip the sha256 check (development only).

What is verified, per source (a checksum is pinned only where it was computed from the real
upstream file; one that could not be computed is not guessed):

* ``github-head/*``, ``github-d1c922e/*``, Rosalind test cases: the sha256 of the real file
  at the pinned commit (``ChecksumError`` on any difference).
* ``python-harness/tasks`` (joe1chief/adapters): **no file checksum**. The only copy seen here
  holds 79 of the upstream file's 157 records, so the real file's sha256 was never computed.
  Instead every record is checked (:func:`verify_records`): ``full_hash`` is 64 hex digits,
  ``task_id`` is ``py_`` + its first 12, no hash repeats, and there are at most 157 records
  (exactly 157 for a download, which is the whole upstream file).
* ``hf-biocoder_public/*``: a download is checked against the sha256 the Hub reports for the
  LFS object (or the git blob id); every record is checked too: ``test_case_id`` is 64 hex
  digits and unique, ``language`` is Python or Java, and there are at most 157 Python and
  50 Java records (the public set's sizes). The Hub files are preferred for the
  ``python_public``/``java_public`` harnesses; the adapters file is the fallback, and a Hub
  file that cannot be downloaded is skipped with a warning (the configs are built without it).
  They are optional in a source dir.
``lilbillbiscuit/biocoder_hidden`` is registered for reference only: it holds prompts
and reference outputs of the hidden set without test harnesses, so no config reads it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from biocoder_dataset import settings
from biocoder_dataset._rosalind_table import ROSALIND_TABLE
from biocoder_dataset.errors import ChecksumError, SourceFileError

UPSTREAM_REPO = "gersteinlab/BioCoder"
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


def _github(
    name: str, commit: str, path: str, local_path: str, sha256: str, repo: str = UPSTREAM_REPO
) -> SourceFile:
    return SourceFile(name, "github", repo, commit, path, local_path, sha256)


_ENTRIES: tuple[SourceFile, ...] = (
    _github(
        "github-head/java_public",
        HEAD_COMMIT,
        "datasets/java_public.json",
        "github-head/java_public.json",
        "510cdc6c68ef086f18705e8a662892f09e111a1283c73631c8715a394608bc6c",
    ),
    _github(
        "github-head/java_similar",
        HEAD_COMMIT,
        "datasets/java_similar.json",
        "github-head/java_similar.json",
        "e6e2d67e02bf5586ce98557f93d649036b4b915f0714f06637d77759237bdc2d",
    ),
    _github(
        "github-head/rosalind",
        HEAD_COMMIT,
        "datasets/rosalind.json",
        "github-head/rosalind.json",
        "9f82136935f832e8cb40e634817dbac74f0ca7b923acf0ec08d111bb4b8a4c70",
    ),
    _github(
        "github-d1c922e/python_public",
        D1C922E_COMMIT,
        "datasets/python_public.json",
        "github-d1c922e/python_public.json",
        "3e0ae80efa83253675aed34f71b2d7c1d470e449fff247f31603b3a1a0b606a8",
    ),
    _github(
        "github-d1c922e/python_hidden",
        D1C922E_COMMIT,
        "datasets/python_hidden.json",
        "github-d1c922e/python_hidden.json",
        "2047c642c0d7a8341be6c34a90c1d4b27ebd69bddeabc65d444b713908d6c97c",
    ),
    _github(
        "github-d1c922e/python_similar",
        D1C922E_COMMIT,
        "datasets/python_similar.json",
        "github-d1c922e/python_similar.json",
        "a66831df66df9243b35692496826161d3b51b6ee5014d9edc4779fa9dafd0c2b",
    ),
    _github(
        "github-d1c922e/java_public",
        D1C922E_COMMIT,
        "datasets/java_public.json",
        "github-d1c922e/java_public.json",
        "096bb6a32ed19177189636e99f847de5bd42df19167cef813aa1460825577ec7",
    ),
    _github(
        "github-d1c922e/java_similar",
        D1C922E_COMMIT,
        "datasets/java_similar.json",
        "github-d1c922e/java_similar.json",
        "3f708351d406fe1db727eda1513d4c46e7c264dd4c8f2cf59c1cad6652d4c907",
    ),
    _github(
        "github-d1c922e/java_hidden",
        D1C922E_COMMIT,
        "datasets/java_hidden.json",
        "github-d1c922e/java_hidden.json",
        "4b6658ad79de53a6c70223877b8ed8c8847a7c6c0ccc1c3c70ec9d4a1d79c753",
    ),
    _github(
        "github-d1c922e/rosalind",
        D1C922E_COMMIT,
        "datasets/rosalind.json",
        "github-d1c922e/rosalind.json",
        "9f82136935f832e8cb40e634817dbac74f0ca7b923acf0ec08d111bb4b8a4c70",
    ),
    # No sha256: the real file (157 records) was never seen here, only a 79-record copy whose
    # checksum is not upstream's. Verified per record instead (verify_records).
    SourceFile(
        "python-harness/tasks",
        "github",
        ADAPTERS_REPO,
        ADAPTERS_COMMIT,
        "src/biocoder/src/biocoder/data/biocoder_tasks.json",
        "python-harness/tasks.json",
        None,
    ),
    SourceFile(
        "hf-biocoder_public/biocoder",
        "hf",
        HF_PUBLIC_REPO,
        HF_PUBLIC_REVISION,
        "biocoder.json",
        "hf-biocoder_public/biocoder.json",
        None,
        optional=True,
    ),
    SourceFile(
        "hf-biocoder_public/test_combined",
        "hf",
        HF_PUBLIC_REPO,
        HF_PUBLIC_REVISION,
        "test_combined.json",
        "hf-biocoder_public/test_combined.json",
        None,
        optional=True,
    ),
)

#: Registry name -> entry (the Rosalind test cases are generated by :func:`rosalind_testcase`).
REGISTRY: dict[str, SourceFile] = {e.name: e for e in _ENTRIES}

_PINNED_TESTCASES: dict[str, tuple[str, str]] = {
    pid: (sha_in, sha_sol) for pid, _, _, sha_in, sha_sol in ROSALIND_TABLE
}


def rosalind_testcase(problem_id: str, solution: bool) -> SourceFile:
    """The input (``solution=False``) or expected-output file of one Rosalind problem.

    Optional in a source dir: a problem whose files are absent is kept as a non-executable row.
    """
    fname = f"rosalind_{problem_id}{'sol' if solution else ''}.txt"
    sha = _PINNED_TESTCASES.get(problem_id, (None, None))[1 if solution else 0]
    return SourceFile(
        f"rosalind-testcases/{fname}",
        "github",
        UPSTREAM_REPO,
        HEAD_COMMIT,
        f"evaluation/TestRosalind/testcases/{fname}",
        f"rosalind-testcases/{fname}",
        sha,
        optional=True,
    )


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
            f"or set {settings.ENV_SKIP_CHECKSUM}=1 to skip checksums during development)"
        )


#: Public set sizes (github-d1c922e size statistics): a harness file cannot hold more tasks.
PUBLIC_SIZES = {"python": 157, "java": 50}
_HEX64 = re.compile(r"[0-9a-f]{64}")


def verify_records(name: str, records: list[dict], where: str, complete: bool) -> None:
    """Per-record checks of a source that has no pinned checksum (see the module docstring).

    ``complete``: the records are the whole upstream file (a download), not a local copy that
    may hold a subset. Raises :class:`SourceFileError` naming the file, the record and the field.
    """
    if name == "python-harness/tasks":
        seen: set[str] = set()
        for i, rec in enumerate(records):
            full = rec.get("full_hash")
            if not isinstance(full, str) or not _HEX64.fullmatch(full):
                raise SourceFileError(
                    f"{where} record {i}: field 'full_hash' should be 64 lowercase hex digits, got {full!r:.80}"
                )
            if rec.get("task_id") != f"py_{full[:12]}":
                raise SourceFileError(
                    f"{where} record {i}: field 'task_id' should be 'py_{full[:12]}' (py_ + the first 12 "
                    f"hex digits of full_hash), got {rec.get('task_id')!r:.80}"
                )
            if full in seen:
                raise SourceFileError(f"{where} record {i}: full_hash {full} appears twice")
            seen.add(full)
        limit = PUBLIC_SIZES["python"]
        if len(records) > limit or (complete and len(records) != limit):
            raise SourceFileError(
                f"{where}: {len(records)} records; the upstream file at {ADAPTERS_COMMIT[:12]} holds "
                f"{limit} (a local copy may hold fewer, never more)"
            )
    elif name.startswith("hf-biocoder_public/"):
        seen = set()
        counts = {"python": 0, "java": 0}
        for i, rec in enumerate(records):
            # The 13-field layout's name; consumers of the Hub files also meet the snake_case family.
            tcid = rec.get("test_case_id", rec.get("full_hash"))
            if not isinstance(tcid, str) or not _HEX64.fullmatch(tcid):
                raise SourceFileError(
                    f"{where} record {i}: field 'test_case_id' should be 64 lowercase hex digits, "
                    f"got {tcid!r:.80}"
                )
            if tcid in seen:
                raise SourceFileError(f"{where} record {i}: test_case_id {tcid} appears twice")
            seen.add(tcid)
            lang = str(rec.get("language", "")).strip().lower()
            if lang not in counts:
                raise SourceFileError(
                    f"{where} record {i} ({tcid[:12]}): field 'language' should be 'Python' or 'Java', "
                    f"got {rec.get('language')!r:.40}"
                )
            counts[lang] += 1
        for lang, n in counts.items():
            if n > PUBLIC_SIZES[lang]:
                raise SourceFileError(
                    f"{where}: {n} {lang} records, more than the {PUBLIC_SIZES[lang]} tasks of the public set"
                )


class SourceResolver:
    """Turns registry entries into local paths: from a source dir, or downloaded and cached.

    One resolver is made per build so the choice of source (and of checksum checking) is
    made once, explicitly, instead of by each reader.
    """

    def __init__(
        self,
        source_dir: str | os.PathLike | None = None,
        verify: bool | None = None,
        cache_dir: str | os.PathLike | None = None,
    ) -> None:
        if source_dir is None:
            source_dir = settings.env_str(settings.ENV_SOURCE_DIR)
        self.source_dir = Path(source_dir) if source_dir is not None else None
        if self.source_dir is not None and not self.source_dir.is_dir():
            raise SourceFileError(
                f"source dir {self.source_dir} does not exist or is not a folder "
                f"(expected a folder laid out like biocoder-upstream: github-head/, github-d1c922e/, ...)"
            )
        self.verify = (not settings.env_flag(settings.ENV_SKIP_CHECKSUM)) if verify is None else verify
        self.cache_dir = Path(cache_dir) if cache_dir is not None else settings.cache_dir("sources")
        self.skipped: list[str] = []  # optional files that could not be had (reported by the build)

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
        if entry.host == "hf" and entry.optional:
            try:
                return self._download(entry)
            except SourceFileError as exc:  # the Hub file is preferred, not required: fall back
                logging.getLogger(__name__).warning("skipping optional Hub file %s: %s", entry.name, exc)
                self.skipped.append(entry.name)
                return None
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
            raise SourceFileError(
                f"could not download upstream file {entry.name!r} from {entry.url}: {exc} "
                f"(no network? pass --source-dir / set {settings.ENV_SOURCE_DIR} to a local copy)"
            ) from exc
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return target

    def _download_hf(self, entry: SourceFile) -> Path:
        """Download from the Hub at the pinned revision and check the LFS sha256 the Hub reports."""
        try:
            from huggingface_hub import HfApi, hf_hub_download

            local = Path(
                hf_hub_download(entry.repo, entry.path, repo_type="dataset", revision=entry.revision)
            )
            infos = HfApi().get_paths_info(
                entry.repo, [entry.path], repo_type="dataset", revision=entry.revision
            )
        except Exception as exc:  # huggingface_hub raises many types (offline, 404, auth)
            raise SourceFileError(
                f"could not download {entry.name!r} ({entry.url}): {exc} "
                f"(pass --source-dir with {entry.local_path} to use a local copy)"
            ) from exc
        info = infos[0] if infos else None
        lfs = getattr(info, "lfs", None)
        if self.verify and lfs is not None:
            actual = sha256_file(local)
            if actual != lfs.sha256:
                raise ChecksumError(
                    f"{local}: sha256 mismatch for {entry.name!r}: the Hub reports {lfs.sha256}, "
                    f"the downloaded file has {actual}"
                )
        elif self.verify and getattr(info, "blob_id", None):  # a plain git file: compare the git blob id
            data = local.read_bytes()
            actual = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
            if actual != info.blob_id:
                raise ChecksumError(
                    f"{local}: git blob id mismatch for {entry.name!r}: the Hub reports "
                    f"{info.blob_id}, the downloaded file has {actual}"
                )
        return local
