"""Select benchmark-worthy functions: upstream's size/comment filters, bio relevance, near-duplicates.

Every rule is applied in a fixed order and a function is dropped by the first rule it fails,
so the report's per-rule counts add up to the number dropped and every dropped function has
exactly one reason.

Near-duplicates are found by *exact* token-set Jaccard similarity (no MinHash approximation,
so results are reproducible and the threshold means what it says), made fast by prefix
filtering: with tokens ordered rarest first, two sets with Jaccard >= t must share one of
the first ``|A| - ceil(t * |A|) + 1`` tokens of A. Tokens are the identifiers, keywords,
numbers and operators of the code with comments and docstrings removed, so a reformatted or
re-documented copy is still a duplicate. Default threshold: 0.8.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from biocoder_metric.build.scaffolding import scaffolding
from biocoder_metric.languages import runner

#: Import prefixes that mark a file as bioinformatics code (Python modules and Java packages).
BIO_IMPORTS: tuple[str, ...] = (
    "Bio",
    "pysam",
    "pyfaidx",
    "pybedtools",
    "pyBigWig",
    "HTSeq",
    "scanpy",
    "anndata",
    "skbio",
    "vcf",
    "cyvcf2",
    "pyranges",
    "gffutils",
    "ete3",
    "dendropy",
    "mdtraj",
    "rdkit",
    "cellprofiler",
    "centrosome",
    "skgenome",
    "htsjdk",
    "org.biojava",
    "uk.ac.ebi",
    "net.sf.picard",
    "picard",
    "beast",
    "dr.evolution",
)
#: Words that mark a function as bioinformatics code when they occur in its name, code or comment.
BIO_KEYWORDS: tuple[str, ...] = (
    "dna",
    "rna",
    "genome",
    "genomic",
    "gene",
    "genes",
    "sequence",
    "sequences",
    "seq",
    "read",
    "reads",
    "allele",
    "variant",
    "variants",
    "chrom",
    "chromosome",
    "chr",
    "protein",
    "codon",
    "amino",
    "nucleotide",
    "base",
    "bases",
    "fasta",
    "fastq",
    "bam",
    "sam",
    "cram",
    "vcf",
    "bed",
    "gff",
    "gtf",
    "cigar",
    "kmer",
    "mutation",
    "snp",
    "snv",
    "indel",
    "cnv",
    "copy",
    "ploidy",
    "coverage",
    "depth",
    "log2",
    "segment",
    "segments",
    "exon",
    "intron",
    "transcript",
    "probe",
    "probes",
    "bin",
    "bins",
    "sample",
    "samples",
    "tumor",
    "purity",
    "cell",
    "cells",
    "phylogenetic",
    "tree",
    "taxon",
    "alignment",
    "align",
    "reference",
    "locus",
    "loci",
    "strand",
    "complement",
    "hypergeometric",
    "fisher",
    "odds",
    "pvalue",
    "haar",
    "mapq",
    "phred",
    "quality",
    "peptide",
    "spectrum",
    "hyper",
    "chi",
    "enrichment",
    "expression",
    "genotype",
    "haplotype",
    "assembly",
    "contig",
    "scaffold",
)


def comma_list(text: str) -> list[str]:
    """``a, b,c`` -> ``["a", "b", "c"]`` (a command-line list)."""
    return [x.strip() for x in text.split(",") if x.strip()]


@dataclass
class SelectConfig:
    """Thresholds of the rules (all configurable from the CLI or a JSON file)."""

    min_lines: int = field(default=3, metadata={"help": "drop functions with numLines below this"})
    max_lines: int = field(default=200, metadata={"help": "drop functions with numLines above this"})
    max_params: int = field(default=8, metadata={"help": "drop functions with more parameters"})
    require_comment: bool = field(  # upstream drops functions without a docstring/Javadoc
        default=True,
        metadata={"help": "keep functions without a docstring/Javadoc", "flag": "--allow-no-comment"},
    )
    relevance: bool = field(
        default=True, metadata={"help": "do not apply the bioinformatics relevance filter"}
    )
    bio_imports: list[str] = field(
        default_factory=lambda: list(BIO_IMPORTS),
        metadata={
            "help": "comma-separated import prefixes that mark bio code (replaces the default list)",
            "type": comma_list,
        },
    )
    bio_keywords: list[str] = field(
        default_factory=lambda: list(BIO_KEYWORDS),
        metadata={"help": "comma-separated bio keywords (replaces the default list)", "type": comma_list},
    )
    min_keyword_hits: int = field(default=2, metadata={"help": "bio keywords needed without a bio import"})
    drop_scaffolding: bool = field(
        default=True,
        metadata={
            "help": "keep tests, stubs, boilerplate and plotting/output helpers",
            "flag": "--keep-scaffolding",
        },
    )
    dedup_threshold: float = field(
        default=0.8, metadata={"help": "token-set Jaccard at or above which functions are duplicates"}
    )

    @classmethod
    def from_file(cls, path: str | Path) -> SelectConfig:
        """Read overrides from a JSON object with any of the field names; unknown keys are an error."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a JSON object of select settings")
        known = set(cls.__dataclass_fields__)
        bad = sorted(set(data) - known)
        if bad:
            raise ValueError(f"{path}: unknown select settings {bad}; known: {sorted(known)}")
        return cls(**data)


# ------------------------------------------------------------------------------------ tokens
_JAVA_TOKEN = re.compile(
    r"[A-Za-z_$][A-Za-z0-9_$]*|\d+(?:\.\d+)?|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|[^\sA-Za-z0-9_]"
)
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def code_tokens(code: str, language: str) -> set[str]:
    """The set of code tokens (comments and docstrings removed) used for near-duplicate detection.

    A regular-expression tokenizer, not ``tokenize``/``ast``: it is ten times faster, never fails
    on a fragment, and token *sets* do not need exact token boundaries. String literals are
    compared by their text (``'x'`` and ``"x"`` are one token) because formatters swap quotes.
    """
    code = runner(language).strip_comments(code)
    # a string literal counts by its text, not its quotes: reformatters swap ' and "
    return {f'"{t[1:-1]}"' if t[:1] in "'\"" else t for t in _JAVA_TOKEN.findall(code)}


def words(text: str) -> set[str]:
    """Lower-cased words of identifiers and prose (camelCase and snake_case split)."""
    return {w.lower() for w in _WORDS.findall(text)}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


class NearDuplicateIndex:
    """Exact token-set Jaccard search with prefix filtering (see the module docstring)."""

    def __init__(self, threshold: float, frequency: dict[str, int]) -> None:
        self.t = threshold
        self.freq = frequency
        self.sets: list[set[str]] = []
        self.keys: list[Any] = []
        self.index: dict[str, list[int]] = defaultdict(list)

    def _prefix(self, tokens: set[str]) -> list[str]:
        ordered = sorted(tokens, key=lambda tok: (self.freq.get(tok, 0), tok))
        n = len(ordered) - math.ceil(self.t * len(ordered)) + 1
        return ordered[: max(n, 1)]

    def best(self, tokens: set[str]) -> tuple[Any, float] | None:
        """(key, similarity) of the most similar indexed set with Jaccard >= threshold, or None."""
        seen: set[int] = set()
        best: tuple[Any, float] | None = None
        for tok in self._prefix(tokens):
            for i in self.index.get(tok, ()):
                if i in seen:
                    continue
                seen.add(i)
                other = self.sets[i]
                small, large = sorted((len(tokens), len(other)))
                if large and small / large < self.t:
                    continue
                sim = jaccard(tokens, other)
                if sim >= self.t and (best is None or sim > best[1]):
                    best = (self.keys[i], sim)
        return best

    def add(self, key: Any, tokens: set[str]) -> None:
        # index the whole prefix: a later query's prefix must meet this set's prefix
        i = len(self.sets)
        self.sets.append(tokens)
        self.keys.append(key)
        for tok in self._prefix(tokens):
            self.index[tok].append(i)


# ------------------------------------------------------------------------------------ rules
def _import_pattern(prefixes: list[str]) -> re.Pattern[str] | None:
    """One regex for all import prefixes (None when there are none: an empty alternation matches everything)."""
    if not prefixes:
        return None
    alternatives = "|".join(re.escape(p) for p in sorted(prefixes, key=len, reverse=True))
    return re.compile(rf"(?<![\w.])(?:{alternatives})(?!\w)")


def own_packages(functions: list[dict[str, Any]]) -> dict[str, set[str]]:
    """Repository (``repoName``) -> the module prefixes its own code lives under.

    Python: the top-level package of every record's ``packageName`` and of its intra-repository
    imports. Java: the first two segments of every ``packageName`` (``com.astrazeneca``). An
    import of one of these is the repository importing itself, which says nothing about
    whether the code is bioinformatics (cnvkit ships ``skgenome``, which is on the bio list).
    """
    out: dict[str, set[str]] = defaultdict(set)
    for rec in functions:
        repo = str(rec.get("repoName") or "")
        pkg = str(rec.get("packageName") or "")
        if not pkg:
            continue
        out[repo].update(runner(rec.get("language") or "python").own_packages(rec))
    return out


def _imported_module(line: str) -> str:
    """``from a.b import c`` -> ``a.b``; ``import a.b as x`` -> ``a.b``; Java ``import a.b.C;`` -> ``a.b.C``."""
    body = (
        line.strip().rstrip(";").removeprefix("from ").removeprefix("import ").removeprefix("static ").strip()
    )
    return body.split()[0] if body else ""


def _is_own(module: str, own: set[str]) -> bool:
    return module.startswith(".") or any(module == p or module.startswith(p + ".") for p in own)


def is_relevant(
    rec: dict[str, Any],
    cfg: SelectConfig,
    pattern: re.Pattern[str] | None = None,
    own: set[str] = frozenset(),
) -> tuple[bool, str]:
    """(relevant?, why) from the file's import statements and the function's bio keywords.

    ``own``: module prefixes of the repository itself (:func:`own_packages`); its imports of
    itself do not count as bioinformatics imports.
    """
    if pattern is None:
        pattern = _import_pattern(cfg.bio_imports)
    imports = rec.get("fileImports") or [i for i in rec.get("imports") or [] if isinstance(i, str)]
    for line in imports if pattern is not None else ():
        if _is_own(_imported_module(line), own):
            continue
        m = pattern.search(line.removeprefix("import ").removeprefix("from ").removeprefix("static "))
        if m:
            return True, f"imports {m.group(0)}"
    hits = sorted(words(rec.get("content", "")) & {k.lower() for k in cfg.bio_keywords})
    if len(hits) >= cfg.min_keyword_hits:
        return True, f"keywords {', '.join(hits[:5])}"
    return False, f"no bioinformatics import and {len(hits)} keyword(s) {hits} < {cfg.min_keyword_hits}"


def existing_goldens(paths: list[str | Path]) -> list[tuple[str, str, str]]:
    """(task id, language, code) of existing BioCoder tasks from task rows or upstream JSON files."""
    from biocoder_dataset.task_file import load_records

    out = []
    for path in paths:
        for i, rec in enumerate(load_records(path)):
            code = rec.get("golden_code") or rec.get("goldenCode") or rec.get("golden") or rec.get("content")
            if not isinstance(code, str) or not code.strip():
                continue
            tid = str(rec.get("task_id") or rec.get("test_case_id") or f"{Path(path).name}#{i}")
            lang = rec.get("language") or ("java" if "{" in code and "def " not in code else "python")
            out.append((tid, str(lang).lower(), code))
    return out


def no_inputs(rec: dict[str, Any]) -> bool:
    """Whether a function takes nothing a harness could vary (the language's rule:
    :meth:`biocoder_metric.languages.base.LanguageRunner.takes_no_inputs`)."""
    from biocoder_metric.languages import runner

    return runner(rec.get("language") or "python").takes_no_inputs(rec)


def select(
    functions: list[dict[str, Any]], cfg: SelectConfig, existing: list[tuple[str, str, str]] = ()
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(kept records, report). The report lists each rule's count and every dropped function."""
    rules = {
        "test_code": "a test, fixture or test-suite file (pytest/unittest/JUnit conventions)",
        "stub": "no behaviour: pass, ..., raise NotImplementedError, docstring-only or empty body",
        "boilerplate": "dunder methods, Java Object methods, trivial getters and setters",
        "plotting_or_output": "plots, or returns nothing, changes nothing and only logs",
        "too_short": f"numLines < {cfg.min_lines}",
        "too_long": f"numLines > {cfg.max_lines}",
        "too_many_params": f"numParams > {cfg.max_params}",
        "no_inputs": "takes no argument and has no object (no self, a static method): nothing a harness can vary",
        "no_comment": "no docstring/Javadoc" if cfg.require_comment else "(disabled)",
        "not_bioinformatics": f"no bio import and < {cfg.min_keyword_hits} bio keywords"
        if cfg.relevance
        else "(disabled)",
        "duplicate_of_existing_task": f"token-set Jaccard >= {cfg.dedup_threshold} with an existing BioCoder task",
        "near_duplicate": f"token-set Jaccard >= {cfg.dedup_threshold} with an earlier kept function",
    }
    dropped: list[dict[str, Any]] = []
    counts = dict.fromkeys(rules, 0)

    def drop(rec: dict[str, Any], rule: str, reason: str) -> None:
        counts[rule] += 1
        dropped.append(
            {
                "function_id": rec.get("function_id"),
                "filePath": rec.get("filePath"),
                "lineStart": rec.get("lineStart"),
                "signature": rec.get("signature"),
                "rule": rule,
                "reason": reason,
            }
        )

    survivors = []
    pattern = _import_pattern(cfg.bio_imports)
    own = own_packages(functions)
    for rec in functions:
        n_lines, n_params = int(rec.get("numLines", 0)), int(rec.get("numParams", 0))
        found = scaffolding(rec) if cfg.drop_scaffolding else None
        if found is not None:
            drop(rec, *found)
        elif n_lines < cfg.min_lines:
            drop(rec, "too_short", f"numLines {n_lines} < {cfg.min_lines}")
        elif n_lines > cfg.max_lines:
            drop(rec, "too_long", f"numLines {n_lines} > {cfg.max_lines}")
        elif n_params > cfg.max_params:
            drop(rec, "too_many_params", f"numParams {n_params} > {cfg.max_params}")
        elif no_inputs(rec):
            drop(rec, "no_inputs", "no parameter and no object: its result is the same on every call")
        elif cfg.require_comment and not (rec.get("comment") or "").strip():
            drop(rec, "no_comment", "no docstring/Javadoc")
        else:
            if cfg.relevance:
                ok, why = is_relevant(rec, cfg, pattern, own.get(str(rec.get("repoName") or ""), set()))
                if not ok:
                    drop(rec, "not_bioinformatics", why)
                    continue
            survivors.append(rec)

    tokens = [code_tokens(r.get("content", ""), r.get("language", "python")) for r in survivors]
    ex_tokens = [(tid, code_tokens(code, lang)) for tid, lang, code in existing]
    freq: dict[str, int] = defaultdict(int)
    for s in tokens + [t for _, t in ex_tokens]:
        for tok in s:
            freq[tok] += 1
    ex_index = NearDuplicateIndex(cfg.dedup_threshold, freq)
    for tid, t in ex_tokens:
        ex_index.add(tid, t)
    own = NearDuplicateIndex(cfg.dedup_threshold, freq)
    kept = []
    for rec, toks in zip(survivors, tokens, strict=True):
        hit = ex_index.best(toks)
        if hit is not None:
            drop(rec, "duplicate_of_existing_task", f"Jaccard {hit[1]:.3f} with task {hit[0]}")
            continue
        hit = own.best(toks)
        if hit is not None:
            drop(rec, "near_duplicate", f"Jaccard {hit[1]:.3f} with {hit[0]}")
            continue
        own.add(rec.get("function_id"), toks)
        kept.append(rec)
    report = {
        "input": len(functions),
        "kept": len(kept),
        "dropped": len(dropped),
        "rules": {name: {"dropped": counts[name], "rule": desc} for name, desc in rules.items()},
        "config": asdict(cfg),
        "existing_tasks": len(existing),
        "dropped_functions": dropped,
    }
    return kept, report
