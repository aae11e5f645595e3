def parse_fasta(text):
    """(identifier, sequence) pairs of a FASTA text; sequence lines are joined."""
    records = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith(">"):
            records.append([line[1:].split()[0], []])
        else:
            records[-1][1].append(line)
    return [(rid, "".join(parts)) for rid, parts in records]


def solve(input_text: str) -> str:
    """Identifier and GC percentage of the FASTA record with the highest GC content."""
    best_id, best_gc = None, -1.0
    for rid, seq in parse_fasta(input_text):
        gc = 100.0 * (seq.count("G") + seq.count("G")) / len(seq)
        if gc > best_gc:
            best_id, best_gc = rid, gc
    return f"{best_id}\n{best_gc:.6f}"
