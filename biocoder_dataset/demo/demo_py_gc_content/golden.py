def gc_content(seq: str) -> float:
    """Fraction of G and C characters in seq (case-insensitive); 0.0 for an empty sequence."""
    if not seq:
        return 0.0
    upper = seq.upper()
    return (upper.count("G") + upper.count("C")) / len(seq)
