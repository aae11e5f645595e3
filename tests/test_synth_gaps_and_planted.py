"""Inputs that reach the branches random values miss: gaps in tables and arrays the code handles,
texts planted in the elements and keys it tests, lines for text it splits into lines, companion
files that are sometimes missing, and alphabets and containers read from the docstring and the
methods called (round 32 of harness synthesis, docs/synthesis.md).

The goldens are made up for these tests in the idioms of bioinformatics code. Each rule is about
harness strength: the test checks the kind the analysis picks and that the synthesised harness,
run on the host, tells the golden from a variant with the bug the rule is for (a dropped
``dropna``, an ignored ``@``, a skipped comment line) on some seeds.
"""

from __future__ import annotations

import textwrap

from _synth_helpers import param_kinds, pipeline_context, returns_vary, run_context, told_apart

from biocoder_metric.synth import python_inputs

_DROPPED = """
    def mean_score_per_gene(df):
        \"\"\"Mean score per gene; rows without a score are dropped.\"\"\"
        if df['score'].isnull().any():
            df = df.dropna(subset=['score'])
        return df.groupby('gene')['score'].mean().round(4).to_dict()
"""


def test_a_pandas_table_read_by_key_with_pandas_methods_is_a_table_not_a_record():
    kinds = param_kinds(_DROPPED)["df"]
    assert kinds[0] == "frame:['score', 'gene']", kinds


def test_a_table_whose_gaps_the_code_drops_has_gaps_in_some_cases(tmp_path):
    returns_vary(_DROPPED, "mean_score_per_gene", tmp_path)
    filled = _DROPPED.replace("df = df.dropna(subset=['score'])", "df = df.fillna(0)")
    assert told_apart(_DROPPED, "mean_score_per_gene", filled) >= 2


def test_an_array_the_code_masks_for_nan_has_gaps_in_some_cases():
    golden = """
        def masked_mean(values):
            ok = ~np.isnan(values)
            return round(float(np.mean(values[ok])), 4) if ok.any() else None
    """
    assert param_kinds(golden)["values"][0] == "ndarray1"
    unmasked = golden.replace("ok = ~np.isnan(values)", "ok = np.ones(len(values), dtype=bool)")
    assert told_apart(golden, "masked_mean", unmasked) >= 2


def test_code_that_handles_no_gap_gets_none():
    golden = """
        def spread(values):
            return round(float(np.max(values) - np.min(values)), 4)
    """
    ctx, _ = pipeline_context(golden, "spread")
    assert "_bc_gap[0] = " not in ctx and "_bc_holes(_r, " not in ctx.split("def _bc_main")[1]


_TAGS = """
    def strip_tags(attrs):
        \"\"\"The attributes of an XML element, without the '@' their names start with.\"\"\"
        tagged = [k for k in attrs.keys() if k.startswith('@')]
        for k in tagged:
            attrs[k[1:]] = attrs.pop(k)
        return attrs
"""


def test_a_container_popped_by_key_is_a_mapping():
    assert param_kinds(_TAGS)["attrs"][0].startswith("dict_"), param_kinds(_TAGS)["attrs"]
    by_position = """
        def last_two(stack):
            top = stack.pop(-1)
            n = len(stack)
            return top, stack.pop(n - 1)
    """
    assert param_kinds(by_position)["stack"][0].startswith("list_")


def test_the_keys_of_a_mapping_get_the_prefix_the_code_tests_them_for():
    kept = _TAGS.replace("attrs[k[1:]] = attrs.pop(k)", "attrs[k[1:]] = attrs[k]")
    assert told_apart(_TAGS, "strip_tags", kept) >= 2


_COMMENTS = """
    def data_lines(lines):
        \"\"\"(line number, line) of the lines that are not comments.\"\"\"
        kept = []
        for i, line in enumerate(lines):
            if line[0] == '#':
                continue
            kept.append((i, line))
        return kept
"""


def test_elements_read_at_a_position_and_compared_with_a_character_are_strings():
    kinds = param_kinds(_COMMENTS)["lines"]
    assert kinds[0] == "list_str", kinds


def test_the_elements_of_a_list_get_the_character_the_code_tests_them_for():
    other = _COMMENTS.replace("if line[0] == '#':", "if line[0] == '!':")
    assert told_apart(_COMMENTS, "data_lines", other) >= 2


_DEDENT = """
    def trim(docstring):
        \"\"\"The lines of a docstring without their common indentation.\"\"\"
        lines = docstring.expandtabs().splitlines()
        indent = min((len(l) - len(l.lstrip()) for l in lines[1:] if l.strip()), default=0)
        trimmed = [lines[0].strip()]
        for line in lines[1:]:
            trimmed.append(line[indent:].rstrip())
        return '\\n'.join(trimmed)
"""


def test_text_split_into_lines_and_iterated_past_the_first_is_several_lines():
    kinds = param_kinds(_DEDENT)["docstring"]
    assert kinds[0].startswith("struct:('run', '\\n'"), kinds  # not an object with ``expandtabs``
    spec = python_inputs.pyast.literal_eval(kinds[0][len("struct:") :])
    assert spec[3] >= 2, spec  # mostly more lines than the one read by position


def test_the_lines_after_the_first_are_reached():
    skipped = _DEDENT.replace("for line in lines[1:]:", "for line in lines[2:]:")
    assert told_apart(_DEDENT, "trim", skipped) >= 2


def test_lines_the_code_strips_are_indented_now_and_then():
    kinds = param_kinds(_DEDENT)["docstring"]
    assert "('padded',)" in kinds[0], kinds
    unchanged = """
        def trim(docstring):
            return docstring
    """  # the null candidate "return the first argument": only indentation tells it apart
    assert told_apart(_DEDENT, "trim", unchanged) >= 2


def test_only_text_has_the_rest_of_the_string_methods():
    golden = """
        def clean(name):
            return name.removesuffix('.gz').swapcase() if name.isascii() else name
    """
    assert param_kinds(golden)["name"][0].startswith("str_"), param_kinds(golden)["name"]


_INDEXED = """
    def index_of(bam):
        \"\"\"The index of a BAM file: its .bai, else the name its .csi file holds, else None.\"\"\"
        if os.path.isfile(bam + '.bai'):
            return bam + '.bai'
        if os.path.exists(bam + '.csi'):
            with open(bam + '.csi') as fh:
                return fh.readline().strip()
        return None
"""


def test_companion_files_whose_existence_is_tested_are_marked():
    kind = param_kinds(_INDEXED)["bam"][0]
    files = python_inputs.pyast.literal_eval(kind[len("prefix:") :])
    assert [(f[0], f[-1]) for f in files] == [(".bai", True), (".csi", True)], files


def test_companion_files_whose_existence_is_tested_are_missing_in_some_cases():
    assumed = _INDEXED.replace("if os.path.isfile(bam + '.bai'):", "if True:")
    assert told_apart(_INDEXED, "index_of", assumed, seeds=range(16)) >= 2


def test_a_companion_file_only_read_is_always_there(tmp_path):
    golden = """
        def first_sample(prefix):
            with open(prefix + '.fam') as fh:
                return fh.readline().split()[0]
    """
    kind = param_kinds(golden)["prefix"][0]
    assert kind.startswith("prefix:") and "True" not in kind, kind
    ctx, _ = pipeline_context(golden, "first_sample")
    outs = run_context(ctx, textwrap.dedent(golden), range(6), tmp_path)
    assert all("exception" not in o for o in outs), outs


def test_a_documented_amino_acid_sequence_is_drawn_from_residues():
    golden = """
        def cleave(sequence, enzyme='KR'):
            \"\"\"Peptides of a tryptic digest.

            Args:
                sequence (str): amino acid sequence to digest
                enzyme (str): residues after which it cuts
            \"\"\"
            out, cur = [], ''
            for aa in sequence:
                cur += aa
                if aa in enzyme:
                    out.append(cur)
                    cur = ''
            return out + ([cur] if cur else [])
    """
    assert param_kinds(golden)["sequence"][0] == "str_protein"
    assert python_inputs.described_alphabet("protein (str): the protein name shown", "str_word") is None
    assert python_inputs.described_alphabet("seq : str\n    an RNA sequence", "str_dna") == "str_rna"
    assert python_inputs.described_alphabet("seq: the DNA sequence of a protein", "str_word") == "str_dna"
