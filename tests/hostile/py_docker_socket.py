# ruff: noqa
# hostile: looks for a container-engine socket (docker, containerd, podman) and asks it for the
#   container list: the classic way out of a container.
# expect: passed
# contained: no engine socket is reachable inside the sandbox; nothing but the answer is printed.
def f(x):
    import socket
    for path in ("/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock",
                 "/proc/1/root/var/run/docker.sock", "/run/podman/podman.sock"):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(0.5)
            s.connect(path)
            s.sendall(b"GET /containers/json HTTP/1.0\r\nHost: x\r\n\r\n")
            reply = s.recv(100)
            print("ESCAPE: engine socket %s answered %r" % (path, reply[:40]))
        except Exception:
            pass
    return x * 2
