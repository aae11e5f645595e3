// hostile: System.exit(0) before the harness prints: a clean exit with no output.
// expect: failed
// contained: judged on its (empty) output: failed, never passed; the worker goes on.
public static int f(int x) {
    System.exit(0);
    return x * 2;
}
