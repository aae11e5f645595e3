import random

<<insert solution here>>


def mutate_last_base(seq):
    """The same sequence with a point substitution at its 3' end."""
    return seq[:-1] + ("C" if seq[-1] == "A" else "A")


def main():
    rng = random.Random(<|int;range=0,1000|>)
    first = <|string;length=15;custom=ACGT;quotes=double|>
    second = <|string;length=15;custom=ACGT|>
    print(first, second, hamming_distance(first, second))
    print(hamming_distance(first, mutate_last_base(first)))
    for _ in range(5):
        seq = "".join(rng.choice("ACGT") for _ in range(rng.randint(10, 40)))
        other = "".join(base if rng.random() < 0.6 else rng.choice("ACGT") for base in seq)
        print(hamming_distance(seq, other), hamming_distance(seq, mutate_last_base(other)))
    try:
        hamming_distance(first, first + "A")
    except ValueError:
        print("length mismatch rejected")


if __name__ == "__main__":
    main()
