# ruff: noqa
# hostile: looks for the evaluator's secrets in its own environment (HF_TOKEN and friends are
#   set to a canary in the evaluator's environment by the test) and in /proc/self/environ.
# expect: passed
# contained: no environment variable of the evaluator reaches the candidate: nothing holding
#   the canary is printed, so the output stays the golden one.
def f(x):
    import os
    for key, value in sorted(os.environ.items()):
        if "CANARY" in value or key in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY"):
            print("LEAK env %s=%s" % (key, value))
    try:
        with open("/proc/self/environ", "rb") as fh:
            raw = fh.read()
        if b"CANARY" in raw:
            print("LEAK /proc/self/environ %r" % raw)
    except Exception:
        pass
    return x * 2
