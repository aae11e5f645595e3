def wallace_tm(primer: str) -> int:
    """Melting temperature (degrees C) of a short primer by the Wallace rule."""
    seq = primer.upper()
    at = seq.count("A") + seq.count("T")
    gc = seq.count("G") + seq.count("C")
    return 2 * at + 4 * gc
