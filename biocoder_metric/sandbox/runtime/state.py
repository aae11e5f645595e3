"""Clean state for every case: the sandbox's writable places and kernel objects, reset.

Why a module of its own: a passing sample's output *is* the expected output, so anything a
case leaves behind that a later case can read is a leak of answers. Cleanliness is therefore
a property of the sandbox, not a list of paths: the places are read from the sandbox itself
(``/proc/self/mountinfo``: every writable mount that holds files, whatever the backend made),
and after every case each of them is put back to what it held when the worker started, plus
what the worker itself keeps there (its workroot, the current job's dir, the Java compiler's
own files, which are fingerprinted: a change means tampering, and the owner is told). Kernel
objects that outlive processes go too: every SysV IPC object (shared memory, semaphores,
message queues; POSIX message queues live on the ``mqueue`` mount and are swept with the
files) and the keys of the user's keyrings. Processes are the loop's job (``kill_leftovers``).

Only a *contained* worker (alone in its sandbox) does this: on the host (``none``) these
places are the user's own.
"""

from __future__ import annotations

import ctypes
import os
import stat

from .processes import rmtree

#: File systems that hold no files a case can leave (kernel views), never walked.
PSEUDO_FS = {
    "proc",
    "sysfs",
    "cgroup",
    "cgroup2",
    "devpts",
    "securityfs",
    "debugfs",
    "tracefs",
    "bpf",
    "pstore",
    "fusectl",
    "configfs",
    "binfmt_misc",
    "autofs",
    "nsfs",
    "selinuxfs",
    "efivarfs",
}
IPC_RMID = 0
#: keyctl(2): KEYCTL_CLEAR on the user and user-session keyrings.
KEYCTL_CLEAR = 7
KEY_SPEC_USER_KEYRING = -4
KEY_SPEC_USER_SESSION_KEYRING = -5
_SYS_KEYCTL = {"x86_64": 250, "aarch64": 219, "arm64": 219, "i686": 288, "i386": 288}


def _unescape(field):
    """mountinfo escapes space, tab, newline and backslash as octal (``\\040``)."""
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and field[i + 1 : i + 4].isdigit() and len(field[i + 1 : i + 4]) == 3:
            out.append(chr(int(field[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def mounts(path="/proc/self/mountinfo"):
    """``[(mount point, fs type, writable)]`` of this mount namespace."""
    out = []
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return out
    for line in lines:
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        fields, rfields = left.split(), right.split()
        if len(fields) < 6 or len(rfields) < 3:
            continue
        point = _unescape(fields[4])
        options = set(fields[5].split(","))
        super_options = set(rfields[2].split(","))
        writable = "rw" in options and "ro" not in super_options
        out.append((point, rfields[0], writable))
    return out


def writable_places(path="/proc/self/mountinfo"):
    """Mount points that hold files and are mounted read-write, innermost last.

    A place is kept whether or not this uid may write to it now: permissions can change (a
    case may own a dir there), mounts cannot (no case has the capability). Walking a place we
    cannot write costs a directory listing.
    """
    seen = {}
    for point, fstype, writable in mounts(path):
        if fstype in PSEUDO_FS:
            seen.pop(point, None)  # a later mount over the same point hides the earlier one
            continue
        if writable:
            seen[point] = fstype
        else:
            seen.pop(point, None)
    return sorted(seen, key=lambda p: (p.count("/"), p))


def _fingerprint(st):
    if stat.S_ISDIR(st.st_mode):
        return ("d", st.st_ino, st.st_mode)
    return ("f", st.st_ino, st.st_mode, st.st_size, st.st_mtime_ns)


def _set_times(path, ns):
    """Access and modification time of ``path`` (not following a symlink) set to ``ns``."""
    try:
        os.utime(path, ns=(ns, ns), follow_symlinks=False)
    except (OSError, NotImplementedError):
        pass


def snapshot(root):
    """``{path: fingerprint}`` of everything below ``root`` (not following symlinks), within its mount."""
    out = {}
    try:
        device = os.lstat(root).st_dev
    except OSError:
        return out
    stack = [root]
    while stack:
        top = stack.pop()
        try:
            entries = list(os.scandir(top))
        except OSError:
            continue
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            out[entry.path] = _fingerprint(st)
            if stat.S_ISDIR(st.st_mode) and st.st_dev == device:
                stack.append(entry.path)
    return out


class CleanState:
    """What the worker resets after every case (see the module docstring).

    ``baseline``: every writable place's content when the worker started (fingerprinted).
    ``own``: entries the worker made and keeps across cases (fingerprinted when registered).
    ``keep``: subtrees of the current job (its case dirs), passed to :meth:`reset`.
    """

    def __init__(self, contained, mountinfo="/proc/self/mountinfo"):
        self.contained = contained
        # Only directories hold entries (bwrap binds single device files read-write), and each
        # place is walked within its own file system: a mount below it is another place or none.
        self.places = [p for p in writable_places(mountinfo) if os.path.isdir(p)] if contained else []
        self.devices = {}
        for place in self.places:
            try:
                self.devices[place] = os.lstat(place).st_dev
            except OSError:
                pass
        self.baseline = {}
        self.baseline_roots = {}
        for place in self.places:
            self.baseline.update(snapshot(place))
            try:
                self.baseline_roots[place] = _fingerprint(os.lstat(place))
            except OSError:
                pass
        self.own = {}
        self.ipc_baseline = self._ipc_ids() if contained else {}
        self._libc = None

    # -- what the worker keeps

    def register(self, root):
        """Keep ``root`` and everything below it as they are now (the worker's own files)."""
        try:
            st = os.lstat(root)
        except OSError:
            return
        self.own[root] = _fingerprint(st)
        if stat.S_ISDIR(st.st_mode):
            self.own.update(snapshot(root))

    def forget(self, root):
        """Stop keeping ``root`` (the worker removed or will rebuild it)."""
        prefix = root.rstrip("/") + "/"
        for path in [p for p in self.own if p == root or p.startswith(prefix)]:
            del self.own[path]

    # -- the reset

    def reset(self, keep=()):
        """Put every writable place back, clear IPC objects and keyrings.

        Returns the own paths found changed (tampered with); the caller decides what to
        rebuild. Entries that are neither baseline, own, an ancestor of those or of ``keep``,
        nor inside ``keep``, are removed.
        """
        if not self.contained:
            return []
        keep = tuple(k.rstrip("/") for k in keep)
        tampered = []
        for place in self.places:
            self._sweep(place, keep, tampered)
        self._clear_ipc()
        self._clear_keyrings()
        return tampered

    def _needed_dir(self, path, keep):
        """True if ``path`` is an ancestor of something kept (a dir the worker needs)."""
        prefix = path.rstrip("/") + "/"
        return any(k.startswith(prefix) for k in keep) or any(p.startswith(prefix) for p in self.own)

    def _sweep(self, top, keep, tampered):
        """Remove what is not kept below ``top``; kept dirs get their mode and times back.

        Metadata is state too: a case that may write a kept dir or file could encode a value
        in its mode or times for a later case to read. So kept dirs (the place itself, ancestors
        of kept paths, own and baseline dirs) get their recorded mode and fixed times after
        every case, and kept files get their recorded times (size and mtime are checked).
        """
        kept_dirs = [(top, self.baseline_roots.get(top))]
        stack = [top]
        while stack:
            d = stack.pop()
            try:
                entries = list(os.scandir(d))
            except OSError:
                continue
            for entry in entries:
                path = entry.path
                if path in keep:
                    continue
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                fp = _fingerprint(st)
                is_dir = stat.S_ISDIR(st.st_mode)
                if is_dir and st.st_dev != self.devices.get(top):
                    continue  # another mount (a place of its own, or not writable): not walked here
                known = self.own.get(path) or self.baseline.get(path)
                if is_dir and (known is not None or self._needed_dir(path, keep)):
                    kept_dirs.append((path, known))
                    stack.append(path)
                    continue
                if known is None:
                    rmtree(path)
                elif known != fp:
                    if path in self.own:
                        tampered.append(path)  # the owner rebuilds it
                    else:
                        rmtree(path)  # a baseline entry changed: gone for every later case alike
                else:
                    _set_times(path, known[4])
        for path, known in reversed(kept_dirs):  # children first: removals change a dir's times
            if known is not None:
                try:
                    if stat.S_IMODE(os.lstat(path).st_mode) != stat.S_IMODE(known[2]):
                        os.chmod(path, stat.S_IMODE(known[2]))
                except OSError:
                    pass
            _set_times(path, 0)

    # -- kernel objects

    def _libc_handle(self):
        if self._libc is None:
            try:
                self._libc = ctypes.CDLL(None, use_errno=True)
            except OSError:
                self._libc = False
        return self._libc

    @staticmethod
    def _ipc_ids():
        ids = {}
        for kind in ("shm", "sem", "msg"):
            found = set()
            try:
                with open(f"/proc/sysvipc/{kind}") as fh:
                    next(fh, None)  # header
                    for line in fh:
                        parts = line.split()
                        if len(parts) > 1 and parts[1].lstrip("-").isdigit():
                            found.add(int(parts[1]))
            except OSError:
                pass
            ids[kind] = found
        return ids

    def _clear_ipc(self):
        libc = self._libc_handle()
        if not libc:
            return
        for kind, found in self._ipc_ids().items():
            for ident in found - self.ipc_baseline.get(kind, set()):
                if kind == "shm":
                    libc.shmctl(ident, IPC_RMID, None)
                elif kind == "sem":
                    libc.semctl(ident, 0, IPC_RMID)
                else:
                    libc.msgctl(ident, IPC_RMID, None)

    def _clear_keyrings(self):
        libc = self._libc_handle()
        number = _SYS_KEYCTL.get(os.uname().machine)
        if not libc or number is None:
            return
        for ring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING):
            libc.syscall(number, KEYCTL_CLEAR, ring)
