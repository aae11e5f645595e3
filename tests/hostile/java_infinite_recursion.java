// hostile: unbounded recursion (StackOverflowError, uncaught).
// expect: runtime_error
// contained: the JVM dies with an error of this case only.
public static int f(int x) {
    return f(x + 1) + 1;
}
