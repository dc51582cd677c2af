"""Reference model of stdlib/random.br (SPEC 11), for deriving golden outputs.

SplitMix64's finalizer on a counter, in 64-bit wrapping arithmetic; seed and i
are taken as their two's-complement u64.
"""
M64 = (1 << 64) - 1


def mix(seed, i):
    z = ((seed & M64) * 0x9E3779B97F4A7C15 + (i & M64) + 1) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def uniform(seed, i):
    return float(mix(seed, i) >> 11) * 2.0 ** -53


def below(seed, i, n):
    if n <= 0:
        raise ValueError(f"random.below: n must be positive, got {n}")
    return int(uniform(seed, i) * float(n))
