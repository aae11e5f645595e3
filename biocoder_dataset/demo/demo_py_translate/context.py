import random

# The standard genetic code (NCBI table 1), codons enumerated in T, C, A, G order.
BASES = "TCAG"
AMINO_ACIDS = "FFLLSSSSYY**CC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"
CODON_TABLE = {
    first + second + third: AMINO_ACIDS[16 * i + 4 * j + k]
    for i, first in enumerate(BASES)
    for j, second in enumerate(BASES)
    for k, third in enumerate(BASES)
}

<<insert solution here>>


def main():
    to_stop = bool(<|bool;type=int|>)
    rng = random.Random(<|int;range=0,1000|>)
    genes = ["ATG<|string;length=9;custom=ACGT;quotes=none|>"]
    for _ in range(4):
        genes.append("ATG" + "".join(rng.choice("ACGT") for _ in range(3 * rng.randint(3, 15))))
    for dna in genes:
        print(dna, translate(dna), translate(dna, to_stop))
    print(translate(genes[0] + "GA"))


if __name__ == "__main__":
    main()
