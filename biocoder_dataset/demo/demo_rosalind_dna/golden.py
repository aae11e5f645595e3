def solve(input_text: str) -> str:
    """Counts of A, C, G and T in a DNA string, space-separated."""
    dna = input_text.strip()
    return " ".join(str(dna.count(base)) for base in "ACGT")
