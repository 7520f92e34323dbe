#!/usr/bin/env python3
"""Fits the rational erf the kernels use (src/kernels/KernelSupport.h, erff):
erf(x) = x P(x^2) / Q(x^2) on [0, 4], Q(0) = 1, by iteratively reweighted
linear least squares on the absolute error of erf (Loeb's linearisation with
Lawson's weights, converging towards the minimax fit); then evaluates the
coefficients rounded to float with float arithmetic, as the kernel does,
against mpmath's erf.

    python tools/fit_erf.py [--p-terms 6] [--q-terms 7]
"""
import argparse

import mpmath
import numpy as np


def fit(p_terms, q_terms, iterations=60):
    x = np.unique(np.concatenate([np.linspace(0, 4, 6000), 4 * np.sin(np.linspace(0, np.pi / 2, 4000))]))
    f = np.array([float(mpmath.erf(v) / v) if v > 0 else float(2 / mpmath.sqrt(mpmath.pi)) for v in x])
    t = x * x
    weights, q_prev = np.ones_like(x), np.ones_like(x)
    for _ in range(iterations):
        # P(t) - f Q(t) = 0 with Q's constant term 1, scaled to erf's absolute error.
        a = np.hstack([t[:, None] ** np.arange(p_terms), -(f * t)[:, None] * t[:, None] ** np.arange(q_terms - 1)])
        w = weights * np.where(x > 0, x, 1e-3) / q_prev
        c, *_ = np.linalg.lstsq(a * w[:, None], f * w, rcond=None)
        p, q = c[:p_terms], np.concatenate([[1.0], c[p_terms:]])
        q_prev = np.polyval(q[::-1], t)
        error = x * (np.polyval(p[::-1], t) / q_prev - f)
        weights *= 1 + 5 * np.abs(error) / np.abs(error).max()
        weights /= weights.max()
    return p, q, np.abs(error).max()


def float_erf(x, p, q):
    ax = np.minimum(np.abs(x), np.float32(4))
    t = ax * ax
    pv, qv = np.float32(p[-1]), np.float32(q[-1])
    for c in p[-2::-1]:
        pv = pv * t + np.float32(c)
    for c in q[-2::-1]:
        qv = qv * t + np.float32(c)
    return np.copysign(np.minimum(ax * pv / qv, np.float32(1)), x)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p-terms", type=int, default=6)
    parser.add_argument("--q-terms", type=int, default=7)
    args = parser.parse_args()
    p, q, exact_error = fit(args.p_terms, args.q_terms)
    x = np.linspace(-4.5, 4.5, 10001).astype(np.float32)
    reference = np.array([float(mpmath.erf(float(v))) for v in x])
    float_error = np.abs(float_erf(x, p, q).astype(np.float64) - reference).max()
    print(f"max abs error: {exact_error:.3g} in double, {float_error:.3g} in float")
    print("P (t^0 first):", ", ".join(f"{c:.15e}" for c in p))
    print("Q (t^0 first):", ", ".join(f"{c:.15e}" for c in q))


if __name__ == "__main__":
    main()
