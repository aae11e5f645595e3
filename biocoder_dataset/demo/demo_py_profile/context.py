import random

<<insert solution here>>


def consensus(profile):
    """Most frequent base per column; ties go to the first base in A, C, G, T order."""
    length = len(profile["A"])
    return "".join(max("ACGT", key=lambda base: profile[base][j]) for j in range(length))


def main():
    rng = random.Random(<|int;range=0,1000|>)
    n_sequences = <|int;range=3,8|>
    seqs = [<|string;length=12;custom=ACGT|>]
    for _ in range(n_sequences - 1):
        seqs.append("".join(rng.choice("ACGT") for _ in range(12)))
    for seq in seqs:
        print(seq)
    profile = profile_matrix(seqs)
    for base in "ACGT":
        print(f"{base}: " + " ".join(str(count) for count in profile[base]))
    print(consensus(profile))
    print(profile_matrix([]))
    try:
        profile_matrix(seqs + ["ACGT"])
    except ValueError:
        print("unequal lengths rejected")


if __name__ == "__main__":
    main()
