"""Scoring: unbiased pass@k (``passk``), per-sample results on disk with resume (``results``),
the run summary and its tables (``summary``), and the merge of shard runs (``merge``)."""
