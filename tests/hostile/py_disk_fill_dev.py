# ruff: noqa
# hostile: disk filler in /dev itself (a RAM-backed tmpfs under bwrap). Reserves 32 MiB files with posix_fallocate (falling back to
#   plain writes where the file system cannot fallocate) until the space runs out; 32 MiB per file
#   stays under a per-file size limit, so only a size-capped file system stops it. The error is
#   not caught. Bounded at 3 GiB (96 files): a sandbox that lets it get there prints ESCAPE.
# expect: runtime_error
# contained: the write fails with ENOSPC (or EDQUOT) well before 3 GiB; nothing it wrote is left
#   in the host's /dev afterwards.
def f(x):
    import os
    chunk = 32 << 20
    for i in range(96):
        fd = os.open("/dev/@@MARKER@@_%d.bin" % i, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            try:
                os.posix_fallocate(fd, 0, chunk)
            except OSError as exc:
                if exc.errno not in (95, 22):  # EOPNOTSUPP / EINVAL: no fallocate here
                    raise
                block = b"\x02" * (1 << 20)
                for _ in range(32):
                    os.write(fd, block)
        finally:
            os.close(fd)
    print("ESCAPE: reserved 3 GiB in /dev")
    return x * 2
