"""The statistics the benches report beside `statistics.median`."""


def percentile(values, fraction):
    """Nearest-rank percentile: the value at `fraction` (0 to 1) of the sorted values, rounded to
    the nearest index. Every bench uses this rule, so their p99s compare."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))
    return ordered[index]
