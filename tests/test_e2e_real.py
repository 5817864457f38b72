"""Real documents through every page, in Debian's chromium.

The generated Example is short news items; users bring manual pages, documentation and
source files. ``benchmarks.corpora.real_documents(12000)`` takes up to 12,000 of them from
what this machine has installed (with ``id`` and ``source`` fields), written as JSON lines
and opened as a user does, ``nearsim app corpus.jsonl --id-field id``. One server, one tab,
every page of the navigation visited once, in its order: each must show its title, draw
what it draws (metrics, charts, tables; the Audit view its form), show no error or
exception box, and the browser must request nothing outside the app. No timing is asserted
here (``python -m benchmarks.bench_app --parts real`` measures it).
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest
from e2e_server import PAGES, click_nav, nearsim_app, open_app, wait_idle
from playwright.sync_api import expect
from test_e2e import _leaves, assert_no_errors, drawn_on, title

from benchmarks.corpora import real_documents

WANTED = 12_000
FLOOR = 2_000
"""Fewest documents the walk accepts. This machine has about 26,000 (21,500 manual pages,
a Google Cloud SDK's among them); a fresh Debian machine with Python and chromium has far
fewer manual pages but always the standard library's sources (about 1,700 files) and a
copyright file and a changelog for each of its several hundred packages. Fewer than this
means the walk would no longer be on real lengths at scale: the test says so and fails,
rather than silently testing less."""
PAGE_TIMEOUT = 900_000  # ms: a first visit computes that page's stages on a slow CI machine


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    records = real_documents(WANTED)
    assert len(records) >= FLOOR, (
        f"only {len(records):,} installed documents found (manual pages, /usr/share/doc, "
        f"Python's sources); this walk needs at least {FLOOR:,}"
    )
    path = tmp_path_factory.mktemp("real") / "installed.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"walking {len(records):,} installed documents")
    return path, records


def test_installed_documents_walk_through_every_page(installed, new_context):
    path, records = installed
    with nearsim_app(str(path), "--id-field", "id", timeout=180) as port:
        host = f"127.0.0.1:{port}"
        page = new_context().new_page()
        page.set_default_timeout(PAGE_TIMEOUT)
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        open_app(page, f"http://{host}/", timeout=PAGE_TIMEOUT)
        for path_, heading, nav in PAGES:
            where = f"{nav} on {len(records):,} installed documents"
            if path_ != "/":
                click_nav(page, nav)
                page.wait_for_url(lambda url, p=path_: urlsplit(url).path == p)
                wait_idle(page, timeout=PAGE_TIMEOUT)
            expect(title(page)).to_have_text(heading)
            assert_no_errors(page, where)
            drawn = page.get_by_test_id("stMain").locator(drawn_on(path_))
            assert drawn.count(), f"{where}: nothing drawn but words"
        leaving = sorted({u for u in requests if _leaves(u, host)})
        assert not leaving, f"requests to hosts other than {host}: {leaving}"
