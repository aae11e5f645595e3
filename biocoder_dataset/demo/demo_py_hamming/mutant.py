def hamming_distance(a: str, b: str) -> int:
    """Number of positions at which two equal-length sequences differ."""
    if len(a) != len(b):
        raise ValueError("sequences must have the same length")
    return sum(1 for i in range(len(a) - 1) if a[i] != b[i])
