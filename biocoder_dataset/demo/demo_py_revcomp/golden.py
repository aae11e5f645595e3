def reverse_complement(seq: str) -> str:
    """Reverse complement of an uppercase DNA sequence; N pairs with N."""
    pairs = {"A": "T", "T": "A", "G": "C", "C": "G", "N": "N"}
    return "".join(pairs[base] for base in reversed(seq))
