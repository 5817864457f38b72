"""The audit's HTML report: one self-contained file, charts as inline SVG.

Nothing is loaded from other sites (no script, no font, no style sheet, no image from a
URL): the product's privacy rule, tested by parsing the file. The charts are drawn here as
plain SVG — the library does not import the explorer's chart library.
"""

from __future__ import annotations

import math
from html import escape

__all__ = ["bars_svg", "html_report", "log_log_svg"]

_STYLE = """
body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;
max-width:980px;padding:24px;color:#1f2328;background:#fff}
h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:32px 0 6px;border-bottom:1px solid #ddd}
.lead{color:#555;margin:0 0 18px}.tiles{display:flex;flex-wrap:wrap;gap:12px}
.tile{flex:1 1 200px;border:1px solid #ddd;border-radius:8px;padding:12px 14px}
.tile b{font-size:28px;display:block}.tile small{color:#555}
.alarm{background:#fff4e5;border-left:4px solid #e8590c;padding:8px 12px;margin:6px 0}
.ok{background:#ebfbee;border-left:4px solid #2f9e44;padding:8px 12px}
table{border-collapse:collapse;width:100%;font-size:14px}td,th{padding:4px 8px;
border-bottom:1px solid #eee;text-align:left}td.n,th.n{text-align:right}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:10px}
.pair pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;padding:8px;
border-radius:6px;max-height:260px;overflow:auto;font-size:13px;margin:4px 0}
svg text{font:12px system-ui,sans-serif;fill:#333}.cap{color:#555;font-size:13px}
"""


def _pct(v) -> str:
    return "—" if v is None else f"{100 * v:.1f}%"


def _tile(title: str, iv: dict, note: str) -> str:
    band = "" if iv["low"] is None else f"95% interval {_pct(iv['low'])} – {_pct(iv['high'])}"
    return (
        f'<div class="tile"><small>{escape(title)}</small><b>{_pct(iv["estimate"])}</b>'
        f"<small>{band}<br>{escape(note)}</small></div>"
    )


def _ticks(low: float, high: float) -> list[float]:
    return [10.0**e for e in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)]


def log_log_svg(points: list[tuple[float, float]], xlabel: str, ylabel: str) -> str:
    """A scatter of positive (x, y) on log-log axes, with axis titles; inline SVG."""
    w, h, left, bottom, top, right = 640, 300, 64, 46, 14, 16
    if not points:
        return "<p class='cap'>No clusters of two or more documents.</p>"
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    x0, x1 = 1.0, max(10.0, max(xs) * 1.5)
    y0, y1 = 0.8, max(10.0, max(ys) * 1.5)

    def sx(v):
        return left + (math.log10(v) - math.log10(x0)) / (math.log10(x1) - math.log10(x0)) * (
            w - left - right
        )

    def sy(v):
        return (h - bottom) - (math.log10(v) - math.log10(y0)) / (
            math.log10(y1) - math.log10(y0)
        ) * (h - bottom - top)

    parts = [f'<svg viewBox="0 0 {w} {h}" width="100%" role="img" aria-label="{escape(ylabel)}">']
    for t in _ticks(x0, x1):
        if t <= x1:
            parts.append(f'<line x1="{sx(t):.1f}" x2="{sx(t):.1f}" y1="{top}" y2="{h - bottom}" '
                         'stroke="#eee"/>')  # fmt: skip
            parts.append(f'<text x="{sx(t):.1f}" y="{h - bottom + 16}" text-anchor="middle">'
                         f"{t:,.0f}</text>")  # fmt: skip
    for t in _ticks(1.0, y1):
        if y0 <= t <= y1:
            parts.append(f'<line x1="{left}" x2="{w - right}" y1="{sy(t):.1f}" y2="{sy(t):.1f}" '
                         'stroke="#eee"/>')  # fmt: skip
            parts.append(f'<text x="{left - 6}" y="{sy(t) + 4:.1f}" text-anchor="end">'
                         f"{t:,.0f}</text>")  # fmt: skip
    for x, y in points:
        parts.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3.5" fill="#1c7ed6" '
                     f'fill-opacity="0.75"><title>{x:,.0f} documents: {y:,.0f} clusters'
                     "</title></circle>")  # fmt: skip
    parts.append(f'<text x="{(left + w - right) / 2}" y="{h - 8}" text-anchor="middle">'
                 f"{escape(xlabel)}</text>")  # fmt: skip
    parts.append(f'<text transform="translate(14 {(top + h - bottom) / 2}) rotate(-90)" '
                 f'text-anchor="middle">{escape(ylabel)}</text>')  # fmt: skip
    parts.append("</svg>")
    return "".join(parts)


def bars_svg(rows: list[tuple[str, float, float]], xlabel: str, legend: tuple[str, str]) -> str:
    """Horizontal bars, one per (label, total, part): the part drawn over the total."""
    if not rows:
        return ""
    w, bar, gap, left = 640, 18, 6, 220
    h = 40 + len(rows) * (bar + gap)
    top = max(r[1] for r in rows) or 1.0
    parts = [f'<svg viewBox="0 0 {w} {h}" width="100%" role="img" aria-label="{escape(xlabel)}">']
    for i, (label, total, part) in enumerate(rows):
        y = 8 + i * (bar + gap)
        tw = (w - left - 70) * total / top
        pw = (w - left - 70) * part / top
        parts.append(f'<text x="{left - 8}" y="{y + 13}" text-anchor="end">'
                     f"{escape(label[:34])}</text>")  # fmt: skip
        parts.append(f'<rect x="{left}" y="{y}" width="{tw:.1f}" height="{bar}" fill="#d0ebff"/>')
        parts.append(f'<rect x="{left}" y="{y}" width="{pw:.1f}" height="{bar}" fill="#e8590c"/>')
        share = part / total if total else 0.0
        parts.append(f'<text x="{left + tw + 6:.1f}" y="{y + 13}">{share:.0%}</text>')
    y = h - 14
    parts.append(f'<rect x="{left}" y="{y - 10}" width="12" height="12" fill="#d0ebff"/>'
                 f'<text x="{left + 16}" y="{y}">{escape(legend[0])}</text>'
                 f'<rect x="{left + 170}" y="{y - 10}" width="12" height="12" fill="#e8590c"/>'
                 f'<text x="{left + 186}" y="{y}">{escape(legend[1])}</text>')  # fmt: skip
    parts.append("</svg>")
    return "".join(parts)


def _similarity_svg(bands: list[dict], threshold: float) -> str:
    """Per 0.05 band with sampled pairs (from 0.3 up): the share the run put in one cluster,
    on a 0–100% scale, labelled with the band's estimated number of corpus pairs."""
    rows = [
        (f"J {b['low']:.2f}–{b['low'] + 0.05:.2f} ({b['pairs']:,.0f})", 1.0,
         b["together"] / b["pairs"] if b["pairs"] else 0.0)
        for b in bands
        if b["sampled"] and b["low"] >= 0.3
    ]  # fmt: skip
    return bars_svg(rows[::-1], "share in one cluster by similarity", ("all pairs of the band",
                    "put in one cluster"))  # fmt: skip


def html_report(result: dict) -> str:
    """The report for :func:`nearsim.audit.run.audit`'s result, as one HTML string."""
    t = result["threshold"]
    p, r = result["precision"], result["recall"]
    rem = result["removed"]
    body = [
        f"<h1>Deduplication audit</h1><p class='lead'>{escape(result['source'])}: "
        f"{rem['documents']:,} documents, {rem['removed']:,} removed ({_pct(rem['share'])}). "
        f"A pair is a true duplicate when its exact Jaccard similarity (shingles as the run "
        f"made them) is at least {t:g}.</p>",
        '<div class="tiles">',
        _tile(
            "Precision",
            p,
            f"removed documents within {t:g} of the one kept "
            f"({p['within_threshold']:,} of {p['checked']:,} checked)",
        ),
        _tile(
            "Recall",
            r,
            f"true pairs put in one cluster ({r['found']:,} of "
            f"{r['true_pairs']:,} found among {r['anchors']:,} sampled documents)",
        ),
        "</div>",
        "<h2>Alarms</h2>",
    ]
    if result["alarms"]:
        body += [f'<div class="alarm">{escape(a)}</div>' for a in result["alarms"]]
    else:
        body.append('<div class="ok">Nothing alarming: no chain among the largest clusters, '
                    "no group mostly removed, both intervals above 0.9.</div>")  # fmt: skip
    hist = result["clusters"]["size_histogram"]
    body += [
        "<h2>Cluster sizes</h2>",
        f"<p class='cap'>{result['clusters']['count']:,} clusters of two or more documents; "
        f"the largest holds {result['clusters']['largest']:,}. Each dot is a cluster size and "
        "how many clusters have it, on log-log axes: a dot far to the right is a giant "
        "cluster.</p>",
        log_log_svg([(s, c) for s, c in hist], "documents in the cluster", "clusters"),
    ]
    by_group = rem.get("by_group")
    if by_group:
        shown = list(by_group.items())[:30]
        body += [
            f"<h2>Removal per {escape(rem['group_field'])}</h2>",
            "<p class='cap'>Documents read and removed per value (the 30 largest groups).</p>",
            bars_svg(
                [(v or "(empty)", g["documents"], g["removed"]) for v, g in shown],
                "removal per group",
                ("documents", "removed"),
            ),
            "<table><tr><th>value</th><th class='n'>documents</th><th class='n'>removed</th>"
            "<th class='n'>share</th></tr>",
            *(
                f"<tr><td>{escape(v or '(empty)')}</td><td class='n'>{g['documents']:,}</td>"
                f"<td class='n'>{g['removed']:,}</td><td class='n'>{_pct(g['share'])}</td></tr>"
                for v, g in shown
            ),
            "</table>",
        ]
    body += [
        "<h2>Pairs by similarity</h2>",
        "<p class='cap'>Pairs around the sampled documents over the whole range of similarity "
        "(all pairs above the floor, a uniform sample below it): for each band of exact "
        "similarity, the share of its pairs the run put in one cluster, and in brackets how "
        f"many pairs of the corpus the band holds (estimated). Bands at J ≥ {t:g} should be "
        "near 100%; bands well below it near 0%.</p>",
        _similarity_svg(result["by_similarity"], t),
        "<h2>The largest clusters</h2>",
        "<p class='cap'>Each with its least similar member: the kept document (left) beside "
        "the member least like it (right). A low similarity means a chain.</p>",
    ]
    texts = result.get("_texts", {})
    for g in result["giant_clusters"][:10]:
        kept, least = texts.get(g["cluster"], ("", ""))
        body.append(
            f"<h3>Cluster {g['cluster']}: {g['size']:,} documents; least similar member row "
            f"{g['least_similar_row']}, Jaccard {g['min_similarity_to_kept']:.2f}</h3>"
            f"<div class='pair'><div><small>kept (row {g['cluster']})</small>"
            f"<pre>{escape(kept)}</pre></div><div><small>least similar (row "
            f"{g['least_similar_row']})</small><pre>{escape(least)}</pre></div></div>"
        )
    worst = result.get("_worst", [])[:5]
    if worst:
        body.append(
            "<h2>Removed documents least like the one kept</h2><p class='cap'>From the "
            "precision sample: removed documents below the threshold, beside the document kept "
            "in their place.</p>"
        )
    for w in worst:
        body.append(
            f"<h3>Row {w['row']} removed for row {w['kept']}: Jaccard {w['jaccard']:.2f}</h3>"
            f"<div class='pair'><div><small>kept (row {w['kept']})</small>"
            f"<pre>{escape(w['kept_text'] or '')}</pre></div><div><small>removed (row "
            f"{w['row']})</small><pre>{escape(w['text'])}</pre></div></div>"
        )
    if result.get("missed"):
        body += [
            "<h2>Pairs the run missed</h2>",
            f"<p class='cap'>The most similar sampled pairs (J ≥ {t:g}) left in different "
            "clusters, by row.</p><table><tr><th>row</th><th>row</th><th class='n'>Jaccard</th>"
            "</tr>",
            *(
                f"<tr><td>{m['a']}</td><td>{m['b']}</td><td class='n'>{m['jaccard']:.3f}</td></tr>"
                for m in result["missed"][:15]
            ),
            "</table>",
        ]
    s = result["sample"]
    body.append(
        f"<h2>How this was measured</h2><p class='cap'>Precision: {s['removed_checked']:,} "
        "removed documents drawn at random, each compared exactly with its cluster's kept "
        f"document (Wilson interval). Recall: {s['anchors']:,} documents drawn at random and "
        "compared with each other (every pair above a floor found by an exact similarity "
        "join, a uniform sample of pairs below it); the share of their true pairs in one "
        "cluster, with the interval of a ratio over the pairs of a sample. "
        f"{s['pairs']:,} pairs verified exactly; seed {s['seed']}.</p>"
    )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>Deduplication audit</title><style>{_STYLE}</style></head><body>"
        + "".join(body)
        + "</body></html>\n"
    )
