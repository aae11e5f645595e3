def parse_fasta(text: str) -> list:
    """(identifier, sequence) records of a FASTA text, in file order."""
    records = []
    identifier = None
    chunks = []
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if not line:
            continue
        if line.startswith(">"):
            if identifier is not None:
                records.append((identifier, "".join(chunks)))
            words = line[1:].split()
            identifier = words[0] if words else ""
            chunks = []
        elif identifier is not None:
            chunks = [line]
    if identifier is not None:
        records.append((identifier, "".join(chunks)))
    return records
