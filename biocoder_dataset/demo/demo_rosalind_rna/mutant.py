def solve(input_text: str) -> str:
    """The RNA transcribed from a coding-strand DNA string (T replaced by U)."""
    return input_text.strip().replace("T", "U", 1)
