import random

<<insert solution here>>


def format_counts(counts):
    """Sorted 'kmer:count' pairs, so the printout does not depend on dict order."""
    return " ".join(f"{kmer}:{counts[kmer]}" for kmer in sorted(counts))


def main():
    random.seed(<|int|>)
    k = <|int;range=1,4|>
    seq = "".join(random.choice("ACGT") for _ in range(random.randint(20, 60)))
    print(k, seq)
    print(format_counts(kmer_counts(seq, k)))
    print(format_counts(kmer_counts(seq, k + 1)))
    print(sum(kmer_counts(seq, k).values()))
    print(format_counts(kmer_counts(seq, len(seq) + 1)))


if __name__ == "__main__":
    main()
