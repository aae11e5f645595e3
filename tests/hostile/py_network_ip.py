# ruff: noqa
# hostile: network by IP: TCP connects to a listener the test opens on the host (loopback, the
#   host's own addresses, the Docker bridge gateway) and to an internet address resolved by the
#   test (port 443). Prints ESCAPE for every connection that succeeds.
# expect: passed
# contained: no connection succeeds (output stays the golden one) and the host listener never
#   accepts a connection.
def f(x):
    import socket
    targets = [(ip, int("@@HOST_PORT@@")) for ip in "@@HOST_IPS@@".split(",") if ip]
    targets += [(ip, 443) for ip in "@@EGRESS_IPS@@".split(",") if ip]
    for ip, port in targets:
        try:
            s = socket.create_connection((ip, port), timeout=0.3)
        except Exception:
            continue
        print("ESCAPE: connected to %s:%d" % (ip, port))
        s.close()
    return x * 2
