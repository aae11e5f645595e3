"""The benchmark-construction half of BioCoder: repository -> functions -> selection -> prompts -> task rows.

One module per stage (``extract_python``, ``extract_java``, ``select``, ``summarize`` +
``prompts``, ``tasks``) and ``pipeline`` chaining them; ``biocoder build ...`` is the CLI
(:mod:`biocoder_metric.cli.build`) and ``docs/build.md`` the user guide and file formats.
Importing this package imports no parser and no model library.
"""
