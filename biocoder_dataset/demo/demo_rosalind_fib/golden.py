def solve(input_text: str) -> str:
    """Rabbit pairs after n months when each mature pair produces k new pairs a month."""
    n, k = (int(token) for token in input_text.split())
    previous, current = 0, 1  # pairs alive in month 0 and month 1
    for _ in range(n - 1):
        previous, current = current, current + k * previous
    return str(current)
