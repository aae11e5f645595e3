"""Reading runs for people: confidence intervals, plots, the HTML report, text metrics, upstream formats.

Each module has one job and imports nothing from the execution engine beyond the shared
types: ``ci`` (bootstrap intervals and paired comparisons, numpy only), ``plots``
(matplotlib figures), ``html`` (the self-contained ``report.html``), ``text_metrics``
(CodeBLEU / BLEU, optional extra ``metrics``), ``upstream`` (BioCoder's own Rosalind
folder layout in and ``results.json`` out), ``runs`` (loading run directories).
"""
