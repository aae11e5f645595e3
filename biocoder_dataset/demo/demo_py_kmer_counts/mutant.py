def kmer_counts(seq: str, k: int) -> dict:
    """Occurrences of every overlapping k-mer of seq."""
    counts = {}
    if k <= 0 or k > len(seq):
        return counts
    for i in range(len(seq) - k):
        kmer = seq[i:i + k]
        counts[kmer] = counts.get(kmer, 0) + 1
    return counts
