import itertools
import random

STOP_CODONS = ("TAA", "TAG", "TGA")
SENSE_CODONS = ["".join(c) for c in itertools.product("ACGT", repeat=3) if "".join(c) not in STOP_CODONS]


class OrfScanner:
    """Finds open reading frames on the forward strand of a DNA sequence."""

    start_codon = "ATG"
    stop_codons = STOP_CODONS

    def __init__(self, min_codons):
        self.min_codons = min_codons

    def codon_at(self, seq, i):
        """The codon starting at 0-based position i."""
        return seq[i:i + 3]

    <<insert solution here>>


def random_dna(rng, length):
    return "".join(rng.choice("ACGT") for _ in range(length))


def main():
    rng = random.Random(<|int;range=0,1000|>)
    scanner = OrfScanner(<|int;range=1,5|>)
    for _ in range(3):
        gene = "ATG" + "".join(rng.choice(SENSE_CODONS) for _ in range(6)) + rng.choice(STOP_CODONS)
        seq = random_dna(rng, rng.randint(0, 20)) + gene + random_dna(rng, rng.randint(0, 30))
        orfs = scanner.find_orfs(seq)
        print(seq)
        print(orfs)
        print(" ".join(seq[start:end] for start, end in orfs))


if __name__ == "__main__":
    main()
