import random

DNA_ALPHABET = "ACGT"


def random_dna(rng, length):
    """A reproducible random DNA string (the generator is seeded by the fuzz case)."""
    return "".join(rng.choice(DNA_ALPHABET) for _ in range(length))


<<insert solution here>>


def main():
    rng = random.Random(<|int;range=0,1000|>)
    sequences = [
        <|string;length=20,60;custom=ACGT|>,
        <|string;type=alpha;length=25|>.upper(),
    ]
    for _ in range(5):
        sequences.append(random_dna(rng, rng.randint(10, 80)))
    sequences.append(sequences[0].lower())
    sequences.append("")
    for seq in sequences:
        print(f"{gc_content(seq):.6f}")


if __name__ == "__main__":
    main()
