COMPLEMENT = {"A": "T", "T": "A", "C": "G", "G": "C"}


def solve(input_text: str) -> str:
    """Reverse complement of a DNA string."""
    dna = input_text.strip()
    return "".join(COMPLEMENT[base] for base in reversed(dna))
