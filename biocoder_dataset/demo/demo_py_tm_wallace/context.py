import random

<<insert solution here>>


def main():
    primer_name = <|string|>
    reference_temp = <|float|>
    rng = random.Random(<|int;range=0,1000|>)
    primers = [<|string;length=14,24;custom=ACGT|>]
    for _ in range(4):
        primers.append("".join(rng.choice("ACGTacgt") for _ in range(rng.randint(14, 30))))
    for primer in primers:
        tm = wallace_tm(primer)
        print(primer_name, primer, tm, f"{tm - reference_temp:.2f}")


if __name__ == "__main__":
    main()
