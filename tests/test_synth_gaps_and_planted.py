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


_GFF = """
    def gene_names(gff_path):
        \"\"\"Gene id -> name from a GFF3 file; the id where the record has no Name.\"\"\"
        out = {}
        for line in open(gff_path):
            if line.startswith('#'):
                continue
            fields = line.rstrip('\\n').split('\\t')
            attrs = dict(kv.split('=', 1) for kv in fields[8].split(';') if '=' in kv)
            out[attrs['ID']] = attrs.get('gene_name', attrs.get('Name', attrs['ID']))
        return out
"""


def test_gff_records_carry_the_attributes_the_code_reads_now_and_then():
    kind = param_kinds(_GFF)["gff_path"][0]
    assert kind == "fmt:path:gff@['gene_name']", kind  # ID and Name are on every record
    ignored = _GFF.replace(
        "attrs.get('gene_name', attrs.get('Name', attrs['ID']))", "attrs.get('Name', attrs['ID'])"
    )
    assert told_apart(_GFF, "gene_names", ignored) >= 2


_VCF = """
    def structural_variants(vcf_path):
        \"\"\"(chrom, pos, SVTYPE) of the records of a VCF file that are structural variants.\"\"\"
        out = []
        with open(vcf_path) as fh:
            for line in fh:
                if line.startswith('#'):
                    continue
                fields = line.split('\\t')
                info = dict(kv.split('=', 1) for kv in fields[7].split(';') if '=' in kv)
                if 'SVTYPE' in info:
                    out.append((fields[0], int(fields[1]), info['SVTYPE']))
        return out
"""


def test_vcf_records_carry_the_info_fields_the_code_reads_now_and_then():
    assert param_kinds(_VCF)["vcf_path"][0] == "fmt:path:vcf@['SVTYPE']"
    constant = _VCF.replace("info['SVTYPE']))", "'DEL'))")
    assert told_apart(_VCF, "structural_variants", constant) >= 2


_PROFILES = """
    def profiles_in(models_dir, suffix='.hmm'):
        \"\"\"(family, profile name) of every profile under models_dir, one folder per family.\"\"\"
        found = []
        for family in sorted(os.listdir(models_dir)):
            path = os.path.join(models_dir, family)
            if not os.path.isdir(path):
                continue
            for name in sorted(os.listdir(path)):
                if name.endswith(suffix):
                    found.append((family, name[: -len(suffix)]))
        return found
"""


def test_a_folder_the_code_lists_holds_entries_with_the_endings_it_looks_for():
    assert param_kinds(_PROFILES)["models_dir"][0] == "indir:(['.hmm'], True)"
    fasta = """
        def fasta_files(folder):
            return sorted(f for f in os.listdir(folder) if f.endswith(('.fa', '.fasta')))
    """
    assert param_kinds(fasta)["folder"][0] == "indir:(['.fa', '.fasta'], False)"
    globbed = """
        def tables(folder):
            return [os.path.basename(p) for p in sorted(glob.glob(os.path.join(folder, '*.tsv')))]
    """
    assert param_kinds(globbed)["folder"][0] == "indir:(['.tsv'], False)"
    written = """
        def save(out_dir, text):
            os.makedirs(out_dir, exist_ok=True)
            with open(os.path.join(out_dir, 'report.txt'), 'w') as fh:
                fh.write(text)
    """
    assert param_kinds(written)["out_dir"][0] == "path_dir"  # only written into: empty


def test_the_entries_of_a_listed_folder_are_reached():
    whole = _PROFILES.replace("found.append((family, name[: -len(suffix)]))", "found.append((family, name))")
    assert told_apart(_PROFILES, "profiles_in", whole) >= 2


_LOG = """
    def misaligned(fn):
        \"\"\"Whether the run's log says the panels were not aligned (None: no log).\"\"\"
        log_fn = os.path.splitext(fn)[0] + '.log'
        if not os.path.isfile(log_fn):
            return None
        with open(log_fn) as fh:
            log = fh.read()
        return re.search('ERROR: panels not aligned at [0-9]+', log) is not None
"""


def test_a_companion_named_from_the_stem_is_a_companion_file():
    kind = param_kinds(_LOG)["fn"][0]
    files = python_inputs.pyast.literal_eval(kind[len("prefix:") :])
    assert [f[0] for f in files] == [".log"] and files[0][1].startswith('file:("searched:'), kind


def test_a_text_file_searched_for_a_message_holds_it_now_and_then():
    other = _LOG.replace("'ERROR: panels not aligned at [0-9]+'", "'ERROR: panels not found'")
    assert told_apart(_LOG, "misaligned", other, seeds=range(30)) >= 3


def test_a_parameter_compared_with_a_table_column_meets_its_values_now_and_then(tmp_path):
    golden = """
        def rows_at(score, table):
            \"\"\"The genes whose score is exactly ``score`` (a float).\"\"\"
            return sorted(table.loc[table['score'] == score, 'gene'].tolist())
    """
    ctx, _ = pipeline_context(golden, "rows_at")
    outs = [run_context(ctx, textwrap.dedent(golden), [s], tmp_path)[0] for s in range(20)]
    found = [o for o in outs if o.startswith("result: [") and not o.startswith("result: []")]
    assert len(found) >= 5, outs  # random floats never equal a column's: the filter matched nothing


def test_a_parameter_compared_with_a_record_item_takes_its_value_now_and_then(tmp_path):
    golden = """
        def value_of(rid, rec):
            \"\"\"rec's value when it is record rid.

            Args:
                rid (str): the record id
                rec (dict): the record
            \"\"\"
            if rec['id'] != rid:
                return None
            return rec['value']
    """
    ctx, _ = pipeline_context(golden, "value_of")
    outs = [run_context(ctx, textwrap.dedent(golden), [s], tmp_path)[0] for s in range(20)]
    assert sum(not o.startswith("result: None") for o in outs) >= 5, outs
