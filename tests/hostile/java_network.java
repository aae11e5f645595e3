// hostile: network from Java: TCP to the test's host listener (every host address) and to an
//   internet address on 443; prints ESCAPE for each connection that succeeds.
// expect: passed
// contained: no connection succeeds; the host listener accepts nothing.
public static int f(int x) {
    java.util.List<String> targets = new java.util.ArrayList<>();
    for (String ip : "@@HOST_IPS@@".split(",")) {
        if (!ip.isEmpty()) targets.add(ip + ":@@HOST_PORT@@");
    }
    for (String ip : "@@EGRESS_IPS@@".split(",")) {
        if (!ip.isEmpty()) targets.add(ip + ":443");
    }
    for (String t : targets) {
        String[] hp = t.split(":");
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress(hp[0], Integer.parseInt(hp[1])), 300);
            System.out.println("ESCAPE: connected to " + t);
        } catch (Throwable e) { }
    }
    return x * 2;
}
