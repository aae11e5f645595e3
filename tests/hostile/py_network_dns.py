# ruff: noqa
# hostile: network by name: resolves pypi.org and deb.debian.org (both reachable from this
#   host) and connects to port 80/443; also sends a raw DNS query over UDP to public resolvers.
# expect: passed
# contained: name resolution or the connection fails; nothing is printed beyond the answer.
def f(x):
    import socket
    for name in ("pypi.org", "deb.debian.org"):
        try:
            infos = socket.getaddrinfo(name, 443, proto=socket.IPPROTO_TCP)
        except Exception:
            continue
        for info in infos[:2]:
            try:
                s = socket.create_connection(info[4][:2], timeout=0.3)
            except Exception:
                continue
            print("ESCAPE: connected to %s %s" % (name, info[4][0]))
            s.close()
    query = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x04pypi\x03org\x00\x00\x01\x00\x01"
    for resolver in ("8.8.8.8", "1.1.1.1"):
        try:
            u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            u.settimeout(0.3)
            u.sendto(query, (resolver, 53))
            u.recvfrom(512)
            print("ESCAPE: DNS answer from %s" % resolver)
        except Exception:
            pass
    return x * 2
