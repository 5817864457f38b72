"""Test data for the SimHash modules: unrelated documents, planted fingerprints, job posts.

Shared by ``test_simhash.py``, ``test_hamming.py``, ``test_hash_health.py`` and the Compare
tests in ``test_evaluate.py``. Everything is seeded.
"""

import itertools

import numpy as np
import pandas as pd
from scipy.special import gammaln


def random_words(rng, count, *, lo=3, hi=9):
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return ["".join(rng.choice(letters, size=int(rng.integers(lo, hi + 1)))) for _ in range(count)]


def random_documents(n, seed, words=(40, 80)):
    """Unrelated documents: random letter strings as words."""
    rng = np.random.default_rng(seed)
    return [" ".join(random_words(rng, int(rng.integers(*words)))) for _ in range(n)]


def naive_pairs(fps, d):
    rows = [
        (i, j, bin(int(fps[i]) ^ int(fps[j])).count("1"))
        for i, j in itertools.combinations(range(len(fps)), 2)
    ]
    rows = [r for r in rows if r[2] <= d]
    return pd.DataFrame(rows, columns=["i", "j", "distance"], dtype=np.int64)


def planted(seed, n, d, extra=2):
    """Random fingerprints plus copies at distances 0 .. d + extra, and a few repeats."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 2**64, size=max(n, 1), dtype=np.uint64)
    out = list(base[:n])
    for t in range(n):
        if rng.random() < 0.6:
            x = int(out[int(rng.integers(len(out)))])
            k = int(rng.integers(0, d + extra + 1))
            for b in rng.choice(64, size=k, replace=False):
                x ^= 1 << int(b)
            out.append(np.uint64(x))
        if t % 7 == 0 and out:
            out.append(out[int(rng.integers(len(out)))])
    arr = np.array(out, dtype=np.uint64)
    return arr[rng.permutation(arr.shape[0])]


# Job posts like those in seed 000: varied phrasing over one realistic vocabulary.
ROLES = [
    "Python developer", "React engineer", "full stack developer", "backend engineer",
    "data engineer", "DevOps engineer", "iOS developer", "Android developer",
    "machine learning engineer", "frontend developer", "Go developer", "Rust engineer",
    "WordPress developer", "Shopify expert", "QA automation engineer",
    "site reliability engineer", "Node.js developer", "Django developer",
    "Laravel developer", "Flutter developer",
]  # fmt: skip
LEVELS = ["Senior", "Junior", "Mid-level", "Lead", "Freelance", "Contract", "Part-time"]
TECH = [
    "Python", "Django", "Flask", "FastAPI", "React", "TypeScript", "Node.js", "PostgreSQL",
    "MySQL", "Redis", "AWS", "GCP", "Docker", "Kubernetes", "Terraform", "GraphQL",
    "REST APIs", "Next.js", "Vue", "Tailwind", "Swift", "Kotlin", "Go", "Rust", "Kafka",
    "Airflow", "Spark", "Snowflake", "dbt", "PyTorch", "pandas", "Stripe", "MongoDB",
]  # fmt: skip
TASKS = [
    "build a dashboard for our sales team", "migrate our monolith to microservices",
    "fix performance issues in the checkout flow",
    "write integration tests for the billing API",
    "design a data pipeline for event analytics", "add OAuth login and user roles",
    "ship a mobile app for booking appointments", "set up CI/CD and staging environments",
    "clean up our legacy PHP codebase", "build a scraper that collects product prices",
    "integrate Stripe payments and invoices", "optimise slow SQL queries on large tables",
    "create an admin panel for content moderation",
    "train a model to classify support tickets", "port our web app to a progressive web app",
    "automate deployment to Kubernetes", "implement real-time chat with websockets",
    "write a Chrome extension for our CRM",
    "refactor the React frontend into reusable components",
    "build a REST API for inventory management",
]  # fmt: skip
COMPANIES = [
    "a fintech startup", "an e-commerce brand", "a small agency", "a healthcare company",
    "a logistics platform", "an edtech startup", "a SaaS company", "a nonprofit",
    "a travel marketplace", "a gaming studio", "a real estate portal", "a media company",
    "a climate tech startup", "a recruiting platform", "a food delivery app",
]  # fmt: skip
PLACES = [
    "Remote, worldwide", "Remote, US time zones", "Remote, Europe only", "Berlin or remote",
    "London, hybrid", "New York, on site", "Toronto or remote", "San Francisco, hybrid",
]  # fmt: skip
EXTRAS = [
    "You will work directly with the founder.", "We move fast and ship every week.",
    "Clear specs and a friendly team.", "Long-term work for the right person.",
    "Please include links to similar projects.", "Code review is part of the job.",
    "Async communication, no meetings.", "Start as soon as possible.",
    "Tell us about a bug you are proud of fixing.", "Good English is required.",
    "Equity available for the right candidate.", "We pay weekly via bank transfer.",
]  # fmt: skip
INTRO = [
    "{L} {r} needed at {c}.", "{c} is hiring a {l} {r}.",
    "Looking for a {l} {r} to join {c}.", "Hiring: {r} ({l}) for {c}.",
    "We are {c} and we need a {r}.", "{r} wanted, {l} level.",
    "Gig: {l} {r} for a short project.", "Our team at {c} needs help from a {r}.",
]  # fmt: skip
TASK = [
    "We need someone to {t}.", "The job: {t}.", "You will {t}.", "Main goal is to {t}.",
    "Scope of work: {t}, then hand over.", "First milestone: {t}.", "Help us {t}.",
    "Your task is to {t} before the next release.",
]  # fmt: skip
STACK = [
    "Stack: {x}.", "We use {x}.", "Must know {x}.", "Experience with {x} is a plus.",
    "Tech: {x}.", "You should be comfortable with {x}.",
]  # fmt: skip
PAY = [
    "Budget ${p} fixed.", "Pays ${p} for the whole job.", "${h}/hour, about {w} weeks.",
    "Fixed price ${p}, paid on delivery.", "Rate: ${h} per hour.", "${p} budget, {w} weeks max.",
]  # fmt: skip


def job_posts(n=174, seed=0):
    rng = np.random.default_rng(seed)

    def pick(xs):
        return xs[int(rng.integers(len(xs)))]

    posts = []
    for _ in range(n):
        level = pick(LEVELS)
        slots = {
            "L": level,
            "l": level.lower(),
            "r": pick(ROLES),
            "c": pick(COMPANIES),
            "t": pick(TASKS),
            "x": ", ".join(rng.choice(TECH, size=int(rng.integers(2, 5)), replace=False)),
            "p": int(rng.integers(3, 120)) * 50,
            "h": int(rng.integers(20, 150)),
            "w": int(rng.integers(1, 12)),
        }
        rest = [pick(TASK), pick(STACK), pick(PAY)]
        if rng.random() < 0.6:
            rest.append(f"Location: {pick(PLACES)}.")
        rest += list(rng.choice(EXTRAS, size=int(rng.integers(0, 3)), replace=False))
        rest = [s.format(**slots) for s in rest]
        rng.shuffle(rest)
        posts.append(" ".join([pick(INTRO).format(**slots), *rest]))
    return posts


# --------------------------------------------------------------------------- SimHash model
def _tails(m_max):
    """T[m, k] = P(Binomial(m, 1/2) >= k) for 0 <= m <= m_max, 0 <= k <= m_max + 1."""
    m = np.arange(m_max + 1)[:, None]
    k = np.arange(m_max + 1)[None, :]
    with np.errstate(invalid="ignore"):
        log_pmf = gammaln(m + 1) - gammaln(k + 1) - gammaln(m - k + 1) - m * np.log(2.0)
    pmf = np.where(k <= m, np.exp(log_pmf), 0.0)
    tails = np.zeros((m_max + 1, m_max + 2))
    tails[:, :-1] = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
    return tails


def differ_probabilities(sets, chunk=2000):
    """P(one fingerprint bit differs) for every pair i < j of shingle sets, exactly.

    The model of an ideal 64-bit shingle hash: every bit of every distinct shingle's hash is
    a fair coin, independent of the others. For one bit position, a pair with s shared and
    a, b own shingles has votes S + X and S + Y, with S, X, Y independent sums of s, a, b
    random ±1; a bit is 1 when its vote is > 0 (a tie gives 0). So

        P(differ) = sum over S of P(S) [P(X > −S) P(Y <= −S) + P(X <= −S) P(Y > −S)],

    and, the 64 bit positions being independent, a pair's distance is Binomial(64, P).

    Returns
    -------
    ndarray of float64, shape (n(n − 1)/2,), pairs in ``itertools.combinations`` order.
    """
    sets = [set(x) for x in sets]
    rows = list(itertools.combinations(range(len(sets)), 2))
    size = np.array([len(x) for x in sets])
    shared = np.array([len(sets[i] & sets[j]) for i, j in rows], dtype=np.int64)
    i, j = np.array(rows, dtype=np.int64).reshape(-1, 2).T
    own_a, own_b = size[i] - shared, size[j] - shared
    tails = _tails(int(size.max(initial=0)))
    out = np.empty(len(rows))
    for lo in range(0, len(rows), chunk):
        s, a, b = (x[lo : lo + chunk, None] for x in (shared, own_a, own_b))
        k = np.arange(int(s.max(initial=0)) + 1)[None, :]
        inside = k <= s  # heads among the s shared votes
        kk = np.where(inside, k, 0)
        p_s = np.where(inside, tails[s, kk] - tails[s, kk + 1], 0.0)
        vote = 2 * kk - s  # S
        # bit A is 1 iff S + X > 0, X = 2K − a: K >= floor((a − S) / 2) + 1
        need_a = np.clip((a - vote) // 2 + 1, 0, a + 1)
        need_b = np.clip((b - vote) // 2 + 1, 0, b + 1)
        one_a, one_b = tails[a, need_a], tails[b, need_b]
        out[lo : lo + chunk] = np.sum(p_s * (one_a * (1 - one_b) + one_b * (1 - one_a)), axis=1)
    return out


def mean_distance_and_error(fps):
    """Mean pairwise distance of fingerprints and its standard error from the 64 bits.

    The mean distance over all pairs is exactly the sum over bits b of D_b, the share of
    pairs that differ on bit b: D_b = k_b (k − k_b) / C(k, 2) with k_b documents having
    the bit set. For an ideal hash the 64 D_b are independent and identically distributed
    (each depends only on bit b of the shingles' hashes), so the standard error of the
    mean is sqrt(64 · Var(D)), estimated by the sample variance of the 64 values.
    """
    k = fps.shape[0]
    bits = (fps[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
    ones = bits.sum(axis=0).astype(np.float64)
    share = ones * (k - ones) / (k * (k - 1) / 2)
    return float(share.sum()), float(np.sqrt(64 * share.var(ddof=1)))
