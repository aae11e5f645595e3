// hostile: writes outside the work dir from Java: overwrites the canary file, creates files in
//   the canary dir and the host /tmp. Errors are swallowed.
// expect: passed
// contained: the canary file is unchanged and no new file appears on the host.
public static int f(int x) {
    String[] paths = {"@@CANARY_DIR@@/secret.txt", "@@CANARY_DIR@@/@@MARKER@@.java.new",
                      "/tmp/@@MARKER@@.java.new"};
    for (String p : paths) {
        try {
            java.nio.file.Files.write(java.nio.file.Paths.get(p), "PWNED\n".getBytes());
        } catch (Throwable e) { }
    }
    return x * 2;
}
