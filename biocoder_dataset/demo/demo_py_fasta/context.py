import random

<<insert solution here>>


def wrap(seq, width):
    """Split a sequence into lines of at most width characters, as FASTA writers do."""
    return "\n".join(seq[i:i + width] for i in range(0, len(seq), width))


def main():
    rng = random.Random(<|int;range=0,1000|>)
    width = <|int;range=5,10|>
    records = [
        ("seq_<|string;type=alphanumeric;length=6;quotes=none|>", <|string;type=ascii;length=5,12|>, <|string;length=30,90;custom=ACGT|>),
    ]
    for n in range(3):
        sequence = "".join(rng.choice("ACGT") for _ in range(rng.randint(20, 70)))
        records.append((f"read{n}", f"sample {rng.randint(1, 99)} lane {n}", sequence))
    text = "\n".join(f">{rid} {desc}\n{wrap(seq, width)}\n" for rid, desc, seq in records)
    for rid, seq in parse_fasta(text):
        print(rid, len(seq), seq)
    # Free-text run tag; FASTA parsing never sees it: <|string;type=alphanumeric_special;length=12;quotes=none|>


if __name__ == "__main__":
    main()
