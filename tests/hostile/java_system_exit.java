// hostile: System.exit(42) from inside the function under test.
// expect: runtime_error
// contained: only this case's JVM exits; the worker and the evaluator go on.
public static int f(int x) {
    System.exit(42);
    return x * 2;
}
