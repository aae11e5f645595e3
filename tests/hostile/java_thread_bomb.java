// hostile: thread bomb. Starts sleeping threads until thread creation fails, swallowing every
//   error, and never returns. Bounded at 3000 threads so that a sandbox WITHOUT a pids/threads
//   limit cannot exhaust the shared test machine's pid space: reaching 3000 prints ESCAPE and
//   halts with status 3 (runtime_error instead of the expected timeout).
// expect: timeout
// contained: thread creation fails before 3000 (a pids limit); the time limit kills the whole
//   JVM; no thread or process is left on the host.
public static int f(int x) {
    int started = 0;
    while (true) {
        if (started < 3000) {
            try {
                Thread t = new Thread(() -> {
                    try { Thread.sleep(600000); } catch (Throwable e) { }
                });
                t.setDaemon(false);
                t.start();
                started++;
            } catch (Throwable e) {
                try { Thread.sleep(10); } catch (Throwable e2) { }
            }
        } else {
            System.out.println("ESCAPE: 3000 threads, no thread/process limit");
            System.out.flush();
            Runtime.getRuntime().halt(3);
        }
    }
}
