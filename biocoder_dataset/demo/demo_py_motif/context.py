import random

<<insert solution here>>


def random_dna(rng, length):
    return "".join(rng.choice("ACGT") for _ in range(length))


def main():
    rng = random.Random(<|int;range=0,1000|>)
    motif = <|string;length=3;custom=ACGT|>
    pieces = []
    for _ in range(rng.randint(2, 5)):
        pieces.append(random_dna(rng, rng.randint(0, 12)))
        pieces.append(motif)
    seq = "".join(pieces)
    print(motif, seq)
    print(" ".join(str(p) for p in motif_positions(seq, motif)))
    print(motif_positions(seq, motif + motif))
    print(motif_positions(motif, seq + "A"))


if __name__ == "__main__":
    main()
