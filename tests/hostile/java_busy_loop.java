// hostile: busy loop.
// expect: timeout
// contained: killed at the time limit; the next sample runs.
public static int f(int x) {
    long n = 0;
    while (n >= 0) {
        n = (n + 1) & 0x3fffffffffffffffL;
    }
    return (int) n;
}
