#!/usr/bin/python3
"""
ab_ref_gen.py - reference values for `xvbd ab compare`'s statistics,
computed with SciPy (not run by make check; its output is committed as
tests/unit/ab_ref_cases.h and read by tests/unit/test_ab_ref.c).

    apt-get install python3-scipy     # SciPy 1.10.1 made the committed file
    /usr/bin/python3 tests/unit/ab_ref_gen.py > tests/unit/ab_ref_cases.h

Every value is a multiple of 0.1 (so that a record's run summary, a
request count over 10 s, reproduces it exactly) and the rank
computations run on the integers 10 x value, where "b - d equals a" is
exact.  What each reference is, at 95 %:
  Welch:  scipy.stats.ttest_ind(equal_var=False) for t and p; df by
          Welch-Satterthwaite; the difference's interval with the t
          quantile at that df (tppf below); each centre's half-width
          t(0.975, n - 1) s / sqrt(n).
  Fieller: the ratios r with (mb - r ma)^2 <= t_{df(r)}^2 (vb + r^2 va),
          df(r) the Satterthwaite df of mb - r ma, over the whole line
          (a grid of r = |mb/ma| tan(u), every sign change polished with
          scipy.optimize.brentq): its outer ends; none when A's own
          interval includes 0.
  MWU:    scipy.stats.mannwhitneyu: U of B, method "exact" without ties
          up to 20 a side, else "asymptotic" with continuity, where a tie
          between the samples is broken the way least favourable to a
          rejection (the largest p of: as ties, B just below, B just
          above); the Hodges-Lehmann shift with numpy.median; its
          interval by inverting that same test over every shift, scanned
          linearly; each median's order-statistic interval with
          scipy.stats.binom.
The second table (paired and equivalence cases, ref_pair_cases) has runs
of one ab run experiment (paired: A's run i and B's run i are pair i)
and runs recorded apart (unpaired), each with an equivalence margin P:
  paired: scipy.stats.ttest_rel(ln b, ln a) for t, df and p, and its
          confidence_interval(0.95) exponentiated for the % (the
          geometric mean of B/A); each side's geometric mean, B-A as
          A's times exp(that interval) - 1; ttest_rel(b, a)'s
          confidence_interval for the raw difference; the TOST p as the
          larger of
          ttest_1samp(d, ln(1 - P), alternative="greater") and
          ttest_1samp(d, ln(1 + P), alternative="less"), d = ln(b / a),
          and its 90 % interval ttest_1samp(d).confidence_interval(0.90);
  unpaired: the ratio TOST p as the larger of
          ttest_ind(b, (1 - P) a, equal_var=False, alternative="greater")
          and ttest_ind(b, (1 + P) a, equal_var=False, alternative="less")
          (Welch's t of mean b - r mean a), its interval Fieller's (above)
          at 90 %;
  runs needed for 5 % at 80 % power: the smallest n >= 3 whose power,
          scipy.stats.nct.sf(t, df, ncp) + nct.cdf(-t, df, ncp) at t =
          tppf(0.975, df), reaches 0.8: df n - 1 and ncp ln(1.05)
          sqrt(n / k), k the variance of d (paired), or df 2n - 2 and k
          the sum of the sides' variances of ln x (unpaired).
Three more tables: Fieller's set in pieces (B on 2 runs; the pieces as
above), the noncentral t's CDF (scipy.stats.nct.cdf over t, df and
noncentrality), and designs whose runs needed span 3 to 1000 (paired and
unpaired, at alpha 0.001 to 0.5 and power 0.8 or 0.9), each with the
power at the answer and one below it.
"""
import math
import statistics
import sys

import numpy as np
import scipy
from scipy import optimize, stats

CONF = 0.95
ALPHA = 1 - CONF
Q = (1 + CONF) / 2


def tppf(q, df):
    """Student's t quantile.  SciPy 1.10's t.ppf (cephes stdtrit) is off
    by ~1e-9 at fractional df (its own t.cdf of it is 0.97499999993 for
    0.975 at df 6.05), so it is polished on t.sf (the incomplete beta),
    which is accurate."""
    x0 = stats.t.ppf(q, df)
    f = lambda x: stats.t.sf(x, df) - (1 - q)
    lo, hi = x0 * (1 - 1e-6), x0 * (1 + 1e-6)
    return optimize.brentq(f, lo, hi, xtol=1e-300, rtol=1e-15, maxiter=200)


def moments(a, b):
    """Means and squared standard errors, exactly rounded (the statistics
    module sums in fractions: NumPy's mean of equal values can be an ulp
    off)."""
    a, b = [float(v) for v in a], [float(v) for v in b]
    return (statistics.mean(a), statistics.mean(b),
            statistics.variance(a) / len(a), statistics.variance(b) / len(b))


def welch(a, b):
    na, nb = len(a), len(b)
    ma, mb, va, vb = moments(a, b)
    out = {}
    out["half_a"] = tppf(Q, na - 1) * math.sqrt(va)
    out["half_b"] = tppf(Q, nb - 1) * math.sqrt(vb)
    out["diff"] = mb - ma
    if len(set(a)) == 1 and len(set(b)) == 1:
        # both constant: nothing to test (SciPy 1.10 says t = -1.41 for
        # [0.1] x 3 against [0.1] x 4: NumPy's mean of equal values is an
        # ulp off and the variance not 0); xvbd's convention (p = 1 when
        # equal, 0 when not) is checked in test_ab_stat.c, not here
        out.update(t=None, df=None, p=None, lo=mb - ma, hi=mb - ma)
        return out
    r = stats.ttest_ind(b, a, equal_var=False)
    df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    h = tppf(Q, df) * math.sqrt(va + vb)
    out.update(t=float(r.statistic), df=df, p=float(r.pvalue),
               lo=mb - ma - h, hi=mb - ma + h)
    return out


def fieller_set(a, b, q=Q):
    """Fieller's whole set on the line: (pieces, unbounded).  The t moves
    with r, so the set can have more than one piece: the line is scanned
    through r = s tan(u), u on a grid of (-pi/2, pi/2) with s = |mb / ma|
    (the estimate), every sign change of the excess polished by brentq
    on tppf; the estimate itself is always inside."""
    na, nb = len(a), len(b)
    ma, mb, va, vb = moments(a, b)
    unbounded = not ma * ma > tppf(q, na - 1) ** 2 * va
    if unbounded:
        return [], True
    r0 = mb / ma
    if len(set(a)) == 1 and len(set(b)) == 1:
        return [(r0, r0)], False

    def excess(r, ppf=tppf):
        v = vb + r * r * va
        df = v * v / (vb * vb / (nb - 1) + (r * r * va) ** 2 / (na - 1))
        return (mb - r * ma) ** 2 - ppf(q, df) ** 2 * v

    scale = abs(r0) if r0 != 0 else 1.0
    u = np.linspace(-math.pi / 2, math.pi / 2, 40001)[1:-1]
    r = np.sort(np.append(scale * np.tan(u), r0))
    v = vb + r * r * va
    df = v * v / (vb * vb / (nb - 1) + (r * r * va) ** 2 / (na - 1))
    ex = (mb - r * ma) ** 2 - stats.t.ppf(q, df) ** 2 * v
    inside = ex <= 0
    ends = []
    for i in np.flatnonzero(inside[1:] != inside[:-1]):
        ends.append(optimize.brentq(excess, r[i], r[i + 1], xtol=1e-300,
                                    rtol=1e-15, maxiter=500))
    assert inside[0] == inside[-1] == False and len(ends) % 2 == 0
    return [(ends[i], ends[i + 1]) for i in range(0, len(ends), 2)], False


def fieller(a, b, q=Q):
    """The smallest interval holding Fieller's set (None: unbounded)."""
    pieces, unbounded = fieller_set(a, b, q)
    if unbounded:
        return None, None
    return pieces[0][0], pieces[-1][1]


def has_ties(ia, ib):
    allv = list(ia) + list(ib)
    return len(set(allv)) < len(allv)


def mwu_p(ia, ib, exact):
    """p of B against A (integer units), least favourable at ties."""
    a = np.array(ia, dtype=float)
    b = np.array(ib, dtype=float)
    if exact:
        return float(stats.mannwhitneyu(b, a, alternative="two-sided",
                                        method="exact").pvalue)
    if len(set(list(ia) + list(ib))) == 1:
        return 1.0
    ps = []
    for eps in (0, 0.25, -0.25):   # integers: +-0.25 breaks only ties
        r = stats.mannwhitneyu(b - eps, a, alternative="two-sided",
                               method="asymptotic", use_continuity=True)
        ps.append(float(r.pvalue))
    return max(ps)


def mwu(ia, ib):
    """ia, ib: integer units (10 x value)."""
    na, nb = len(ia), len(ib)
    exact = not has_ties(ia, ib) and na <= 20 and nb <= 20
    a = np.array(ia, dtype=float)
    b = np.array(ib, dtype=float)
    u = float(stats.mannwhitneyu(b, a, alternative="two-sided",
                                 method="asymptotic").statistic)
    d = sorted({int(y - x) for x in ia for y in ib})
    alld = [int(y - x) for x in ia for y in ib]
    hl = float(np.median(alld)) / 10
    p = mwu_p(ia, ib, exact)
    lo = hi = None
    if exact:
        # accepted open gaps between the distinct differences: the
        # closed interval is their hull (Bauer's, by inversion)
        pts = [d[0] - 1] + [(d[i] + d[i + 1]) / 2
                            for i in range(len(d) - 1)] + [d[-1] + 1]
        acc = []
        for i, s in enumerate(pts):
            pv = float(stats.mannwhitneyu(b - s, a, alternative="two-sided",
                                          method="exact").pvalue)
            acc.append(pv >= ALPHA)
        if not acc[0] and not acc[-1] and any(acc):
            first = acc.index(True)
            last = len(acc) - 1 - acc[::-1].index(True)
            lo, hi = d[first - 1] / 10, d[last] / 10
    else:
        def p_at(s, below):
            return mwu_p(ia, [y - s for y in ib], False) if below is None \
                else float(stats.mannwhitneyu(
                    b - s - below, a, alternative="two-sided",
                    method="asymptotic", use_continuity=True).pvalue)
        if p_at(d[0], -0.25) < ALPHA and p_at(d[-1], 0.25) < ALPHA:
            acc = [mwu_p(ia, [y - s for y in ib], False) >= ALPHA
                   for s in d]
            if any(acc):
                lo = d[acc.index(True)] / 10
                hi = d[len(acc) - 1 - acc[::-1].index(True)] / 10
    return dict(u=u, p=p, hl=hl, lo=lo, hi=hi, exact=exact)


def median_half(x):
    s = sorted(x)
    n = len(s)
    tail = (1 - CONF) / 2
    k = 0
    while k < n and stats.binom.cdf(k, n, 0.5) <= tail:
        k += 1
    if k == 0 or k > n // 2:
        return None
    med = float(np.median(s))
    return max(med - s[k - 1], s[n - k] - med)


def cases():
    rng = np.random.default_rng(20261203)
    out = []

    def add(name, a, b):
        a = [round(float(v), 1) for v in a]
        b = [round(float(v), 1) for v in b]
        assert min(a + b) >= 0.1
        out.append((name, a, b))

    # the cases
    add("issue-fieller", [193.9, 286.8, 95.0], [350.9, 148.6, 443.7])
    add("issue-mwu-ties", [7, 2, 5, 5], [5, 7, 6, 8, 7, 8, 9, 8])
    add("ties-6-6", [1, 2, 2, 3, 3, 3], [2, 3, 3, 4, 4, 5])
    # unequal sizes and variances
    for i in range(14):
        na, nb = int(rng.integers(3, 13)), int(rng.integers(3, 13))
        m = float(rng.uniform(50, 3000))
        sa, sb = m * rng.uniform(0.01, 0.2), m * rng.uniform(0.01, 0.2)
        eff = float(rng.choice([1.0, 1.0, 1.03, 1.1, 0.9]))
        add("normal-%d" % i, rng.normal(m, sa, na),
            rng.normal(m * eff, sb, nb))
    # n = 2 on a side or both
    for i in range(8):
        na = 2 if i % 3 != 2 else int(rng.integers(3, 10))
        nb = 2 if i % 3 != 1 else int(rng.integers(3, 10))
        m = float(rng.uniform(100, 1000))
        add("two-%d" % i, rng.normal(m, m * 0.05, na),
            rng.normal(m * 1.05, m * 0.1, nb))
    # ties: coarse integer values
    for i in range(8):
        na, nb = int(rng.integers(3, 12)), int(rng.integers(3, 12))
        add("ties-%d" % i, rng.integers(1, 7, na),
            rng.integers(1 + i % 3, 8, nb))
    # constant sides
    add("const-a", [5, 5, 5], [4.9, 5.3, 5.1, 5.6])
    add("const-b", [10.2, 9.7, 10.9, 10.1], [12, 12, 12])
    add("const-both-equal", [0.1, 0.1, 0.1], [0.1, 0.1, 0.1, 0.1])
    add("const-both-differ", [3, 3, 3], [4, 4])
    # A's interval includes 0: no ratio interval
    for i in range(3):
        add("a-wide-%d" % i, rng.uniform(0.1, 40, 2 + i),
            rng.normal(30, 5, 5))
    # larger: MWU normal approximation past 20 a side, and exact at 20
    for i, (na, nb) in enumerate([(20, 20), (25, 22), (30, 12), (21, 40)]):
        m = float(rng.uniform(200, 2000))
        add("large-%d" % i, rng.normal(m, m * 0.05, na),
            rng.normal(m * 1.02, m * 0.08, nb))
    # skewed (log-normal) run summaries
    for i in range(4):
        na, nb = int(rng.integers(4, 15)), int(rng.integers(4, 15))
        add("lognormal-%d" % i, 500 * rng.lognormal(0, 0.3, na),
            550 * rng.lognormal(0, 0.3, nb))
    return out


def t_power(alpha, df, ncp):
    """Two-sided power from SciPy's noncentral t (Boost's)."""
    tc = tppf(1 - alpha / 2, df)
    return float(stats.nct.sf(tc, df, ncp) + stats.nct.cdf(-tc, df, ncp))


def sized(k, df_of, delta=math.log(1.05), power=0.8, alpha=ALPHA):
    """The smallest n >= 3 whose exact power (the noncentral t's, at
    df_of(n) and noncentrality delta sqrt(n / k)) reaches power (0: no
    variance)."""
    if not k > 0:
        return 0

    def ok(n):
        return t_power(alpha, df_of(n), delta * math.sqrt(n / k)) >= power
    # from a little below the normal approximation, which never
    # oversizes by more than a step, down or up to the first n that is
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    n = max(3, int(z * z * k / delta ** 2) - 2)
    while n > 3 and ok(n - 1):
        n -= 1
    while not ok(n):
        n += 1
    return n


class Interval:
    def __init__(self, low, high):
        self.low, self.high = low, high


def t_interval(x, conf):
    """SciPy's confidence_interval of ttest_1samp with its t.ppf polished
    (see tppf): it agrees to ~1e-9 only."""
    x = np.array(x, dtype=float)
    ci = stats.ttest_1samp(x, 0).confidence_interval(conf)
    m = float(np.mean(x))
    h = tppf((1 + conf) / 2, len(x) - 1) * \
        math.sqrt(statistics.variance([float(v) for v in x]) / len(x))
    assert abs(ci.low - (m - h)) <= 1e-7 * max(1, abs(h))
    return Interval(low=m - h, high=m + h)


def paired(a, b, margin):
    a, b = np.array(a), np.array(b)
    d = np.log(b) - np.log(a)
    r = stats.ttest_rel(np.log(b), np.log(a))
    ci = t_interval(d, CONF)
    dci = t_interval(b - a, CONF)
    plo = stats.ttest_1samp(d, math.log1p(-margin), alternative="greater")
    phi = stats.ttest_1samp(d, math.log1p(margin), alternative="less")
    eci = t_interval(d, 1 - 2 * ALPHA)
    gm_a = math.exp(float(np.mean(np.log(a))))
    return dict(t=float(r.statistic), df=float(r.df), p=float(r.pvalue),
                pct=math.expm1(float(np.mean(d))) * 100,
                pct_lo=math.expm1(ci.low) * 100,
                pct_hi=math.expm1(ci.high) * 100,
                gm_a=gm_a, gm_b=math.exp(float(np.mean(np.log(b)))),
                diff=gm_a * math.expm1(float(np.mean(d))),
                diff_lo=gm_a * math.expm1(ci.low),
                diff_hi=gm_a * math.expm1(ci.high),
                raw=float(np.mean(b - a)), raw_lo=float(dci.low),
                raw_hi=float(dci.high),
                eq_p=max(float(plo.pvalue), float(phi.pvalue)),
                eq_lo=math.expm1(eci.low) * 100,
                eq_hi=math.expm1(eci.high) * 100,
                runs=sized(statistics.variance([float(x) for x in d]),
                           lambda n: n - 1))


def unpaired(a, b, margin):
    a, b = np.array(a), np.array(b)
    plo = stats.ttest_ind(b, (1 - margin) * a, equal_var=False,
                          alternative="greater")
    phi = stats.ttest_ind(b, (1 + margin) * a, equal_var=False,
                          alternative="less")
    flo, fhi = fieller(a, b, 1 - ALPHA)
    k = statistics.variance([math.log(x) for x in a]) + \
        statistics.variance([math.log(x) for x in b])
    return dict(t=None, df=None, p=None, pct=None, pct_lo=None,
                pct_hi=None, gm_a=None, gm_b=None, diff=None, diff_lo=None,
                diff_hi=None, raw=None, raw_lo=None, raw_hi=None,
                eq_p=max(float(plo.pvalue), float(phi.pvalue)),
                eq_lo=None if flo is None else (flo - 1) * 100,
                eq_hi=None if fhi is None else (fhi - 1) * 100,
                runs=sized(k, lambda n: 2 * n - 2))


def pair_cases():
    """Their own generator: the first table stays as it was."""
    rng = np.random.default_rng(20261206)
    out = []

    def add(name, is_paired, margin, a, b):
        a = [round(float(v), 1) for v in a]
        b = [round(float(v), 1) for v in b]
        assert min(a + b) >= 0.1
        out.append((name, is_paired, margin, a, b))

    # ABBA pairs: a drift over the experiment common to both runs of a
    # pair, an effect, and noise of its own per run
    for i, n in enumerate([2, 3, 3, 4, 5, 5, 6, 8, 10, 12, 15, 20]):
        m = float(rng.uniform(50, 3000))
        drift = 1 + 0.3 * np.cumsum(rng.normal(0, 0.1, n))
        eff = float(rng.choice([1.0, 1.01, 1.03, 1.1, 0.95]))
        sd = float(rng.choice([0.005, 0.02, 0.05]))
        a = m * drift * (1 + sd * rng.normal(0, 1, n))
        b = m * eff * drift * (1 + sd * rng.normal(0, 1, n))
        add("paired-%d" % i, 1, float(rng.choice([0.02, 0.05, 0.1])), a, b)
    # two labels recorded apart: equivalence by Welch's ratio test
    for i in range(12):
        na, nb = int(rng.integers(3, 13)), int(rng.integers(3, 13))
        m = float(rng.uniform(50, 3000))
        eff = float(rng.choice([1.0, 1.005, 1.02, 1.08]))
        sa, sb = rng.uniform(0.005, 0.05), rng.uniform(0.005, 0.05)
        add("equiv-%d" % i, 0, float(rng.choice([0.02, 0.05, 0.1])),
            m * (1 + sa * rng.normal(0, 1, na)),
            m * eff * (1 + sb * rng.normal(0, 1, nb)))
    return out


def write_pair_cases(w):
    cs = pair_cases()
    w("\n#define REF_NPAIR_CASES %d\n\nstatic const struct ref_pair_case "
      "ref_pair_cases[] = {\n" % len(cs))
    for name, is_paired, margin, a, b in cs:
        r = (paired if is_paired else unpaired)(a, b, margin)
        w("\t{ \"%s\", %d, %r, %d, %d,\n" % (name, is_paired, margin,
                                             len(a), len(b)))
        w("\t  { %s },\n" % ", ".join(repr(v) for v in a))
        w("\t  { %s },\n" % ", ".join(repr(v) for v in b))
        w("\t  %s,\n" % ", ".join(c_num(r[k]) for k in (
            "t", "df", "p", "pct", "pct_lo", "pct_hi", "gm_a", "gm_b",
            "diff", "diff_lo", "diff_hi", "raw", "raw_lo", "raw_hi")))
        w("\t  %s, %d },\n" % (", ".join(c_num(r[k]) for k in (
            "eq_p", "eq_lo", "eq_hi")), r["runs"]))
    w("};\n")


def set_cases():
    """Fieller's set at 95 % where B has 2 runs (1 df: ratios near 0 can
    pass) and A a few: the issue's two pieces, and random ones kept until
    there are pieces, single intervals and unbounded sets among them."""
    rng = np.random.default_rng(20261207)
    out = [("issue-pieces", [4.0, 3.0, 4.0, 8.0, 5.0], [5.0, 6.0])]
    want = {1: 5, 2: 6, 0: 2}
    i = 0
    while any(v > 0 for v in want.values()):
        na = int(rng.integers(3, 9))
        nb = int(rng.integers(2, 4))
        m = float(rng.uniform(2, 50))
        a = [round(float(v), 1) for v in rng.normal(m, m * rng.uniform(
            0.05, 0.6), na)]
        b = [round(float(v), 1) for v in rng.normal(m * 1.1, m * rng.uniform(
            0.02, 0.3), nb)]
        i += 1
        if min(a + b) < 0.1:
            continue
        pieces, unb = fieller_set(a, b)
        key = 0 if unb else len(pieces)
        if want.get(key, 0) > 0:
            want[key] -= 1
            out.append(("set-%d" % i, a, b))
    return out


def write_set_cases(w):
    cs = set_cases()
    w("\n#define REF_NSET_CASES %d\n\nstatic const struct ref_set_case "
      "ref_set_cases[] = {\n" % len(cs))
    for name, a, b in cs:
        pieces, unb = fieller_set(a, b)
        lo = [p[0] for p in pieces] + [math.nan] * (4 - len(pieces))
        hi = [p[1] for p in pieces] + [math.nan] * (4 - len(pieces))
        w("\t{ \"%s\", %d, %d,\n" % (name, len(a), len(b)))
        w("\t  { %s },\n" % ", ".join(repr(v) for v in a))
        w("\t  { %s },\n" % ", ".join(repr(v) for v in b))
        w("\t  %d, %d, { %s }, { %s } },\n" % (
            1 if unb else 0, len(pieces), ", ".join(c_num(v) for v in lo),
            ", ".join(c_num(v) for v in hi)))
    w("};\n")


def write_nct_cases(w):
    """The noncentral t's CDF over t, df and noncentrality, where SciPy
    gives a finite value."""
    rows = []
    for t in (-6.0, -1.5, 0.0, 0.7, 2.0, 4.3, 12.0):
        for df in (1.0, 2.0, 3.5, 9.0, 40.0, 300.0, 2000.0):
            for ncp in (-3.0, 0.0, 0.5, 2.8, 6.0, 15.0):
                v = float(stats.nct.cdf(t, df, ncp))
                if math.isfinite(v) and 0 <= v <= 1:
                    rows.append((t, df, ncp, v))
    w("\n#define REF_NNCT_CASES %d\n\nstatic const double "
      "ref_nct_cases[][4] = {\n" % len(rows))
    for r in rows:
        w("\t{ %s },\n" % ", ".join(repr(v) for v in r))
    w("};\n")


def runs_cases():
    """Designs whose exact answer spans 3 to 1000 runs: for each target n
    an sd that puts it there, at several levels and powers; the answer is
    SciPy's own search, with the power at it and one below (a case whose
    power sits within 1e-7 of the target at either is left out: it would
    test the last digit, not the method)."""
    out = []
    targets = (3, 4, 5, 6, 7, 8, 10, 12, 15, 19, 24, 30, 40, 55, 75, 100,
               140, 200, 280, 400, 560, 800, 1000)
    levels = ((0.05, 0.8), (0.01, 0.9), (0.2, 0.8), (0.001, 0.8),
              (0.5, 0.8))
    eff = math.log(1.05)
    for i, target in enumerate(targets):
        alpha, power = levels[i % len(levels)]
        z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
        for paired_design in (1, 0):
            sd = eff * math.sqrt(target) / z
            if paired_design:
                sd_a, sd_b, k = sd, 0.0, sd * sd
                df_of = lambda n: n - 1
            else:
                sd_a, sd_b = sd * 0.8, sd * 0.6
                k = sd_a ** 2 + sd_b ** 2
                df_of = lambda n: 2 * n - 2
            n = sized(k, df_of, eff, power, alpha)
            p_n = t_power(alpha, df_of(n), eff * math.sqrt(n / k))
            p_m = t_power(alpha, df_of(n - 1), eff * math.sqrt((n - 1) / k)) \
                if n > 3 else math.nan
            if abs(p_n - power) < 1e-7 or abs(p_m - power) < 1e-7:
                continue
            out.append((paired_design, alpha, power, sd_a, sd_b, eff, n,
                        p_n, p_m))
    # noise far below the effect: the floor of 3, whatever the power
    for paired_design in (1, 0):
        sd = eff / 20
        k = sd * sd if paired_design else 2 * sd * sd
        df_of = (lambda n: n - 1) if paired_design else (lambda n: 2 * n - 2)
        n = sized(k, df_of, eff, 0.8, 0.05)
        out.append((paired_design, 0.05, 0.8, sd, 0.0 if paired_design
                    else sd, eff, n, t_power(0.05, df_of(n),
                                             eff * math.sqrt(n / k)),
                    math.nan))
    return out


def write_runs_cases(w):
    cs = runs_cases()
    w("\n#define REF_NRUNS_CASES %d\n\nstatic const struct ref_runs_case "
      "ref_runs_cases[] = {\n" % len(cs))
    for c in cs:
        w("\t{ %d, %r, %r, %r, %r, %r, %d, %s, %s },\n" % (
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c_num(c[7]),
            c_num(c[8])))
    w("};\n")


def c_num(v):
    return "NAN" if v is None or (isinstance(v, float) and
                                   math.isnan(v)) else repr(float(v))


def main():
    cs = cases()
    w = sys.stdout.write
    w("/* ab_ref_cases.h - generated by tests/unit/ab_ref_gen.py with "
      "SciPy %s, NumPy %s;\n * do not edit: regenerate. */\n"
      % (scipy.__version__, np.__version__))
    w("#define REF_NCASES %d\n\nstatic const struct ref_case ref_cases[] = "
      "{\n" % len(cs))
    for name, a, b in cs:
        ia = [int(round(v * 10)) for v in a]
        ib = [int(round(v * 10)) for v in b]
        wl = welch(np.array(a), np.array(b))
        flo, fhi = fieller(np.array(a), np.array(b))
        mw = mwu(ia, ib)
        w("\t{ \"%s\", %d, %d,\n" % (name, len(a), len(b)))
        w("\t  { %s },\n" % ", ".join(repr(v) for v in a))
        w("\t  { %s },\n" % ", ".join(repr(v) for v in b))
        w("\t  %s, %s, %s, %s, %s, %s, %s, %s,\n" % tuple(
            c_num(wl[k]) for k in ("t", "df", "p", "diff", "lo", "hi",
                                  "half_a", "half_b")))
        w("\t  %s, %s,\n" % (c_num(flo), c_num(fhi)))
        w("\t  %s, %s, %s, %s, %s, %s, %s, %d },\n" % (
            c_num(mw["u"]), c_num(mw["p"]), c_num(mw["hl"]),
            c_num(mw["lo"]), c_num(mw["hi"]), c_num(median_half(a)),
            c_num(median_half(b)), 1 if mw["exact"] else 0))
    w("};\n")
    write_pair_cases(w)
    write_set_cases(w)
    write_nct_cases(w)
    write_runs_cases(w)


if __name__ == "__main__":
    main()
