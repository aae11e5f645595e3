import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.TimeZone;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Warm Java path of the biocoder-eval worker: one JVM compiles every case of a job and then
 * runs the cases one after another, each from its own class loader with System.in/out/err
 * pointed at that case's files. Starting a JVM (and javac) per case costs far more than a
 * typical BioCoder case.
 *
 * <p>Commands arrive on stdin, one per line, tab-separated; each gets one reply line on the
 * stdout this process started with:
 *
 * <pre>
 *   C  srcDir  classesDir                          -> C  0|1      (diagnostics in srcDir/../compile.txt)
 *   R  classesDir  className  workDir  in  out  err -> R  exitCode  flags
 * </pre>
 *
 * flags: M = the case ran out of heap, T = it left threads running (the worker then starts a
 * fresh JVM). A case that calls System.exit ends this JVM: the worker records that case from
 * the JVM's exit status and continues in a new one, so the exit code matches {@code java Main}.
 */
public final class Runner {
    /** Prefix of every reply line: anything else on stdout (JVM warnings) is not a reply. */
    static final String REPLY = "@@biocoder@@ ";

    private Runner() {}

    public static void main(String[] args) throws Exception {
        PrintStream control = new PrintStream(new FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = commands.readLine()) != null) {
            String[] f = line.split("\t", -1);
            if (f[0].equals("C")) {
                control.println(REPLY + "C\t" + compile(new File(f[1]), new File(f[2])));
            } else if (f[0].equals("R")) {
                control.println(REPLY + "R\t" + run(f));
            } else {
                control.println(REPLY + "?\tunknown command");
            }
        }
    }

    /** The case's classes, then upstream's libraries (protocol.py JAVA_LIBS, passed as -Dbiocoder.libs). */
    static String classpath(File classesDir) {
        String libs = System.getProperty("biocoder.libs", "");
        return libs.isEmpty() ? classesDir.getPath() : classesDir.getPath() + File.pathSeparator + libs;
    }

    static URL[] classpathUrls(File classesDir) throws Exception {
        String[] parts = classpath(classesDir).split(File.pathSeparator);
        URL[] urls = new URL[parts.length];
        for (int i = 0; i < parts.length; i++) {
            urls[i] = new File(parts[i]).toURI().toURL();
        }
        return urls;
    }

    static int compile(File srcDir, File classesDir) {
        File report = new File(srcDir.getParentFile(), "compile.txt");
        StringWriter diag = new StringWriter();
        boolean ok = false;
        try {
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            if (javac == null) {
                diag.write("no Java compiler in this runtime (a JDK, not a JRE, is needed)\n");
            } else {
                List<File> sources = new ArrayList<>();
                File[] files = srcDir.listFiles();
                if (files != null) {
                    Arrays.sort(files);
                    for (File file : files) {
                        if (file.getName().endsWith(".java")) {
                            sources.add(file);
                        }
                    }
                }
                try (StandardJavaFileManager fm = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
                    Iterable<? extends JavaFileObject> units = fm.getJavaFileObjectsFromFiles(sources);
                    List<String> options = Arrays.asList(
                            "-encoding", "UTF-8", "-nowarn", "-proc:none",
                            "-d", classesDir.getPath(), "-cp", classpath(classesDir));
                    ok = javac.getTask(new PrintWriter(diag), fm, null, options, null, units).call();
                }
            }
        } catch (Throwable t) {
            t.printStackTrace(new PrintWriter(diag));
        }
        try (Writer w = new OutputStreamWriter(new FileOutputStream(report), StandardCharsets.UTF_8)) {
            w.write(diag.toString());
        } catch (Exception ignored) {
            // the reply still says whether it compiled
        }
        return ok ? 0 : 1;
    }

    static String run(String[] f) throws Exception {
        File classes = new File(f[1]);
        String className = f[2];
        InputStream in = new BufferedInputStream(new FileInputStream(f[4]));
        // The same stream shape the JVM gives System.out/err for a file (autoflush, 128-byte buffer).
        PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(f[5]), 128), true);
        PrintStream err = new PrintStream(new BufferedOutputStream(new FileOutputStream(f[6]), 128), true);
        Properties savedProps = (Properties) System.getProperties().clone();
        Locale savedLocale = Locale.getDefault();
        TimeZone savedZone = TimeZone.getDefault();
        InputStream savedIn = System.in;
        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        System.setIn(in);
        System.setOut(out);
        System.setErr(err);
        final int[] exit = {0};
        final boolean[] oom = {false};
        ThreadGroup group = new ThreadGroup("case");
        try (URLClassLoader loader = new URLClassLoader(classpathUrls(classes), ClassLoader.getPlatformClassLoader())) {
            Thread main = new Thread(group, () -> {
                try {
                    Class<?> cls = Class.forName(className, true, loader);
                    Method m;
                    try {
                        m = cls.getMethod("main", String[].class);
                    } catch (NoSuchMethodException e) {
                        m = null;
                    }
                    if (m == null || !Modifier.isStatic(m.getModifiers()) || m.getReturnType() != void.class) {
                        System.err.println("Error: Main method not found in class " + className
                                + ", please define the main method as:\n   public static void main(String[] args)\n"
                                + "or a JavaFX application class must extend javafx.application.Application");
                        exit[0] = 1;
                        return;
                    }
                    m.setAccessible(true);
                    m.invoke(null, (Object) new String[0]);
                } catch (InvocationTargetException e) {
                    report(e.getCause(), exit, oom);
                } catch (ExceptionInInitializerError e) {
                    report(e, exit, oom);
                } catch (Throwable t) {
                    report(t, exit, oom);
                }
            }, "main");
            int hooksBefore = shutdownHooks();
            main.start();
            main.join();
            // Like the JVM's exit: wait for the program's non-daemon threads.
            boolean lingering = waitForThreads(group);
            if (shutdownHooks() != hooksBefore) {
                // The program registered shutdown hooks: they run (and may print or hang) only at
                // JVM exit, so end this JVM exactly as `java Main` would end. The worker records the
                // exit status and starts a fresh JVM for the next case.
                System.exit(exit[0]);
            }
            out.flush();
            err.flush();
            return exit[0] + "\t" + (oom[0] ? "M" : "") + (lingering ? "T" : "");
        } finally {
            System.setIn(savedIn);
            System.setOut(savedOut);
            System.setErr(savedErr);
            System.setProperties(savedProps);
            Locale.setDefault(savedLocale);
            TimeZone.setDefault(savedZone);
            out.close();
            err.close();
            in.close();
        }
    }

    /** Number of registered application shutdown hooks (needs --add-opens java.base/java.lang). */
    private static int shutdownHooks() {
        try {
            java.lang.reflect.Field f = Class.forName("java.lang.ApplicationShutdownHooks").getDeclaredField("hooks");
            f.setAccessible(true);
            Object hooks = f.get(null);
            return hooks instanceof java.util.Map ? ((java.util.Map<?, ?>) hooks).size() : -1;
        } catch (Throwable t) {
            return -1;
        }
    }

    private static void report(Throwable t, int[] exit, boolean[] oom) {
        if (t instanceof OutOfMemoryError) {
            oom[0] = true;
        }
        // Cut the frames of this runner (reflection, lambda, Thread.run) so the trace reads
        // like the one `java Main` prints.
        StackTraceElement[] st = t.getStackTrace();
        for (int i = 0; i < st.length; i++) {
            String cls = st[i].getClassName();
            if (cls.startsWith("jdk.internal.reflect.") || cls.equals("java.lang.reflect.Method")
                    || cls.startsWith("Runner")) {
                t.setStackTrace(Arrays.copyOf(st, i));
                break;
            }
        }
        System.err.print("Exception in thread \"main\" ");
        t.printStackTrace(System.err);
        exit[0] = 1;
    }

    /** Joins non-daemon threads of the case; true if any thread (daemon) is still alive after. */
    private static boolean waitForThreads(ThreadGroup group) throws InterruptedException {
        while (true) {
            Thread[] threads = new Thread[group.activeCount() + 8];
            int n = group.enumerate(threads, true);
            Thread next = null;
            boolean any = false;
            for (int i = 0; i < n; i++) {
                if (threads[i].isAlive()) {
                    any = true;
                    if (!threads[i].isDaemon()) {
                        next = threads[i];
                        break;
                    }
                }
            }
            if (next == null) {
                return any;
            }
            next.join();
        }
    }
}
