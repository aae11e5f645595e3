def profile_matrix(seqs: list) -> dict:
    """Per-column counts of A, C, G and T over equal-length DNA sequences."""
    length = len(seqs[0]) if seqs else 0
    if any(len(seq) != length for seq in seqs):
        raise ValueError("all sequences must have the same length")
    profile = {base: [0] * length for base in "ACGT"}
    for seq in seqs[1:]:
        for j, base in enumerate(seq):
            profile[base][j] += 1
    return profile
