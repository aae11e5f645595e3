"""A persistence probe: a program that first looks for what an earlier case left, then leaves all it can.

Used by ``tests/test_clean_state.py``. The places are not listed here: the probe derives them
from the sandbox it runs in (``/proc/self/mountinfo``: every mount that is read-write, and
every directory below it that this uid may write), so a writable mount added to a backend
later is probed without anyone remembering it. Kinds of state it plants and looks for:

* a file named after the marker, holding the marker, in every writable directory;
* the marker appended to every writable regular file it finds, and its magic time and mode
  bits set on every entry it owns (metadata is state too);
* a SysV shared-memory segment, semaphore set and message queue; a POSIX message queue;
* a key in the user keyring.

It prints one JSON line: ``{"found": [...], "planted": [...]}``. ``found`` must stay empty
from the second case on; ``planted`` shows the probe was not vacuous.
"""

from __future__ import annotations

PROBE = r"""
import ctypes, json, os, stat, sys

MARK = bytes.fromhex("@@MARKHEX@@").decode()  # not as a literal: the source itself is no finding
MAGIC_NS = 1234567890123456789
PSEUDO = {"proc", "sysfs", "cgroup", "cgroup2", "devpts", "securityfs", "debugfs", "tracefs", "bpf",
          "pstore", "fusectl", "configfs", "binfmt_misc", "autofs", "nsfs"}
found, planted = [], []
libc = ctypes.CDLL(None, use_errno=True)
try:
    librt = ctypes.CDLL("librt.so.1", use_errno=True)  # mq_open lives here before glibc 2.34
except OSError:
    librt = libc
MACH = os.uname().machine
SYS = {"x86_64": {"add_key": 248, "keyctl": 250}, "aarch64": {"add_key": 217, "keyctl": 219}}.get(MACH, {})


def places():
    out = []
    with open("/proc/self/mountinfo") as fh:
        for line in fh:
            left, _, right = line.partition(" - ")
            f, r = left.split(), right.split()
            if len(f) > 5 and r and r[0] not in PSEUDO and "rw" in f[5].split(","):
                out.append(f[4].replace("\\040", " "))
    return sorted(set(out))


def walk(top):
    stack = [top]
    while stack:
        d = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        yield d, entries
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
            except OSError:
                pass


def look():
    for top in places():
        for d, entries in walk(top):
            try:
                st = os.lstat(d)
                if st.st_mtime_ns == MAGIC_NS or st.st_atime_ns == MAGIC_NS:
                    found.append("magic time on dir " + d)
            except OSError:
                pass
            for e in entries:
                if MARK in e.name:
                    found.append("file " + e.path)
                    continue
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if st.st_mtime_ns == MAGIC_NS or st.st_atime_ns == MAGIC_NS:
                    found.append("magic time on " + e.path)
                if stat.S_ISREG(st.st_mode) and st.st_size < (1 << 20):
                    try:
                        with open(e.path, "rb") as fh:
                            if MARK.encode() in fh.read():
                                found.append("marker inside " + e.path)
                    except OSError:
                        pass
    for kind in ("shm", "sem", "msg"):
        try:
            with open("/proc/sysvipc/" + kind) as fh:
                rows = fh.read().splitlines()[1:]
            if rows:
                found.append("sysv %s objects: %d" % (kind, len(rows)))
        except OSError:
            pass
    try:
        mq_open = librt.mq_open
        mq_open.restype = ctypes.c_int
        fd = mq_open(("/" + MARK).encode(), os.O_RDONLY)
        if fd >= 0:
            found.append("posix message queue /" + MARK)
    except AttributeError:
        pass
    if SYS:
        key = libc.syscall(SYS["keyctl"], 10, -4, b"user", MARK.encode(), 0)  # KEYCTL_SEARCH @u
        if key >= 0:
            found.append("key in the user keyring")


def plant():
    for top in places():
        for d, entries in list(walk(top)):
            if os.access(d, os.W_OK):
                p = os.path.join(d, "stash-" + MARK)
                try:
                    with open(p, "w") as fh:
                        fh.write(MARK)
                    planted.append("file in " + d)
                except OSError:
                    pass
            for e in entries:
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode) and os.access(e.path, os.W_OK) and MARK not in e.name:
                    try:
                        with open(e.path, "ab") as fh:
                            fh.write(MARK.encode())
                        planted.append("appended to " + e.path)
                    except OSError:
                        pass
                if st.st_uid == os.getuid():
                    try:
                        os.utime(e.path, ns=(MAGIC_NS, MAGIC_NS), follow_symlinks=False)
                        planted.append("time on " + e.path)
                    except (OSError, NotImplementedError):
                        pass
            try:
                if os.lstat(d).st_uid == os.getuid():
                    os.utime(d, ns=(MAGIC_NS, MAGIC_NS))
                    planted.append("time on dir " + d)
            except OSError:
                pass
    IPC_CREAT = 0o1000
    shm = libc.shmget(0, 4096, IPC_CREAT | 0o600)
    if shm >= 0:
        libc.shmat.restype = ctypes.c_void_p
        addr = libc.shmat(shm, None, 0)
        if addr not in (None, ctypes.c_void_p(-1).value):
            ctypes.memmove(addr, MARK.encode(), len(MARK))
        planted.append("sysv shm")
    if libc.semget(0, 1, IPC_CREAT | 0o600) >= 0:
        planted.append("sysv sem")
    if libc.msgget(0, IPC_CREAT | 0o600) >= 0:
        planted.append("sysv msg")
    try:
        mq_open = librt.mq_open
        mq_open.restype = ctypes.c_int
        if mq_open(("/" + MARK).encode(), os.O_CREAT | os.O_RDWR, 0o600, None) >= 0:
            planted.append("posix mq")
    except AttributeError:
        pass
    if SYS:
        if libc.syscall(SYS["add_key"], b"user", MARK.encode(), MARK.encode(), len(MARK), -4) >= 0:
            planted.append("user key")


look()
plant()
print(json.dumps({"found": found, "planted": planted}))
"""


def probe_program(marker: str) -> str:
    """The probe's Python source for one marker (every planted thing carries it)."""
    return PROBE.replace("@@MARKHEX@@", marker.encode().hex())


JAVA_PROBE = r"""
import java.io.*;
import java.nio.file.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws Exception {
        String mark = new String(java.util.HexFormat.of().parseHex("@@MARKHEX@@"));
        List<String> found = new ArrayList<>(), planted = new ArrayList<>();
        List<String> tops = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get("/proc/self/mountinfo"))) {
            String[] halves = line.split(" - ", 2);
            String[] f = halves[0].split(" ");
            String[] r = halves.length > 1 ? halves[1].split(" ") : new String[0];
            if (f.length > 5 && r.length > 0 && !r[0].startsWith("proc") && !r[0].startsWith("sysfs")
                    && !r[0].startsWith("cgroup") && !r[0].equals("devpts")
                    && Arrays.asList(f[5].split(",")).contains("rw")) tops.add(f[4]);
        }
        List<Path> dirs = new ArrayList<>();
        for (String top : tops) {
            Deque<Path> stack = new ArrayDeque<>();
            stack.push(Paths.get(top));
            while (!stack.isEmpty()) {
                Path d = stack.pop();
                dirs.add(d);
                File[] kids = d.toFile().listFiles();
                if (kids == null) continue;
                for (File k : kids) {
                    if (k.getName().contains(mark)) found.add("file " + k);
                    if (k.isDirectory() && !Files.isSymbolicLink(k.toPath())) stack.push(k.toPath());
                }
            }
        }
        for (Path d : dirs) {
            if (Files.isWritable(d)) {
                try {
                    Files.write(d.resolve("stash-" + mark), mark.getBytes());
                    planted.add("file in " + d);
                } catch (IOException e) { }
            }
        }
        System.out.println("{\"found\": " + found.size() + ", \"planted\": " + planted.size() + "}");
        for (String s : found) System.out.println("found " + s);
    }
}
"""


def java_probe_program(marker: str) -> str:
    """The file part of the probe in Java (a Java candidate can leave files too)."""
    return JAVA_PROBE.replace("@@MARKHEX@@", marker.encode().hex())
