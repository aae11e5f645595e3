import random

<<insert solution here>>


def to_rna(seq):
    """Write a DNA sequence in the RNA alphabet."""
    return seq.replace("T", "U")


def main():
    as_rna = <|bool;type=upper|>
    rng = random.Random(<|int;range=0,1000|>)
    sequences = [<|string;length=12;custom=ACGT;quotes=single|>]
    for _ in range(4):
        sequences.append("".join(rng.choice("ACGTN") for _ in range(rng.randint(15, 40))))
    for seq in sequences:
        rc = reverse_complement(seq)
        print(seq, to_rna(rc) if as_rna else rc)
    print(reverse_complement(reverse_complement(sequences[0])) == sequences[0])


if __name__ == "__main__":
    main()
