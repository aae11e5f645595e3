// hostile: registers a shutdown hook that never finishes (so SIGTERM cannot end the JVM),
//   then sleeps forever.
// expect: timeout
// contained: the sandbox escalates to SIGKILL; no JVM is left on the host.
public static int f(int x) {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        while (true) {
            try { Thread.sleep(1000); } catch (Throwable e) { }
        }
    }));
    while (true) {
        try { Thread.sleep(1000); } catch (Throwable e) { }
    }
}
