// hostile: memory bomb: keeps 64 MiB long[] blocks until OutOfMemoryError (uncaught); bounded
//   at 3 GiB, past which it prints ESCAPE.
// expect: memory_exceeded
// contained: the JVM heap / memory cap stops it; OutOfMemoryError maps to memory_exceeded.
public static int f(int x) {
    java.util.List<long[]> hoard = new java.util.ArrayList<>();
    for (int i = 0; i < 48; i++) {
        long[] block = new long[8 << 20];
        java.util.Arrays.fill(block, 7L);
        hoard.add(block);
    }
    System.out.println("ESCAPE: allocated 3 GiB without hitting a memory limit");
    return x * 2;
}
