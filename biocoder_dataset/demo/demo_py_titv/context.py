import random

<<insert solution here>>


def ratio_text(transitions, transversions):
    """Ti/Tv ratio rounded for printing; 'n/a' when there is no transversion."""
    if transversions == 0:
        return "n/a"
    return f"{transitions / transversions:.4f}"


def main():
    rng = random.Random(<|int;range=0,1000|>)
    pairs = [(<|string;length=40;custom=ACGT|>, <|string;length=40;custom=ACGT|>), ("ACGTCAGT", "GCATTATC")]
    for _ in range(4):
        reference = "".join(rng.choice("ACGT") for _ in range(rng.randint(20, 60)))
        sample = "".join(base if rng.random() < 0.7 else rng.choice("ACGT") for base in reference)
        pairs.append((reference, sample))
    for reference, sample in pairs:
        ti, tv = count_substitutions(reference, sample)
        print(ti, tv, ratio_text(ti, tv))


if __name__ == "__main__":
    main()
