def count_substitutions(reference: str, sample: str) -> tuple:
    """(transitions, transversions) between two aligned DNA sequences."""
    purines = {"A", "G"}
    transitions = 0
    transversions = 0
    for a, b in zip(reference, sample):
        if a == b:
            continue
        if {a, b} <= purines:
            transitions += 1
        else:
            transversions += 1
    return transitions, transversions
