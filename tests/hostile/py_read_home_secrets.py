# ruff: noqa
# hostile: reads the evaluator's secret files: ~/.ssh, ~/.cache/huggingface/token and a planted
#   secret file, by the evaluator's real HOME path (given by the test), through /proc/1/root,
#   and through the sandbox's own HOME; also /root/.ssh.
# expect: passed
# contained: none of the canary files can be read from inside the sandbox; nothing is printed
#   beyond the answer and the canary never appears in the results.
def f(x):
    import os
    home = "@@CANARY_DIR@@"
    rel = [".ssh/id_rsa", ".cache/huggingface/token", "secret.txt"]
    bases = [home, "/proc/1/root" + home, os.path.expanduser("~"), "/root"]
    for base in bases:
        for r in rel:
            path = os.path.join(base, r)
            try:
                with open(path, "r", errors="replace") as fh:
                    data = fh.read(200)
            except Exception:
                continue
            if "CANARY" in data:
                print("LEAK %s: %s" % (path, data))
    return x * 2
