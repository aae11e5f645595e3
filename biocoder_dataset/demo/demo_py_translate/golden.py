def translate(dna: str, to_stop: bool = False) -> str:
    """Protein encoded by dna, read codon by codon from position 0."""
    protein = []
    for i in range(0, len(dna) - 2, 3):
        amino_acid = CODON_TABLE[dna[i:i + 3]]
        if amino_acid == "*" and to_stop:
            break
        protein.append(amino_acid)
    return "".join(protein)
