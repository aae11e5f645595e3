def motif_positions(seq: str, motif: str) -> list:
    """1-based start positions of every (possibly overlapping) occurrence of motif in seq."""
    if not motif or len(motif) > len(seq):
        return []
    positions = []
    for i in range(len(seq) - len(motif) + 1):
        if seq[i:i + len(motif)] == motif:
            positions.append(i + 1)
    return positions
