// hostile: spawns a marker-carrying child process (python3 sleeping 600 s, SIGTERM ignored,
//   in its own session via setsid when available) and returns the right answer at once.
// expect: passed
// contained: judged normally; the child does not outlive the case (no host process carries
//   the marker afterwards).
public static int f(int x) {
    String code = "import os, signal, time\ntry:\n    os.setsid()\nexcept OSError:\n    pass\n"
        + "signal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)\n";
    try {
        new ProcessBuilder("python3", "-c", code, "@@MARKER@@")
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    } catch (Throwable e) { }
    return x * 2;
}
