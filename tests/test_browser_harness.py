"""The real-browser harness (tests/browser.py) sees what it claims to see, and can fail.

Small hand-written pages, each with one known defect (or none), go through one headless Chromium
session for the whole module.  No request leaves the machine: the network pages point at the
never-resolving ``.invalid`` domain, or at a server of the test's own on 127.0.0.1, which must
receive nothing.
"""

from __future__ import annotations

import http.server
import threading
from pathlib import Path

import pytest

import browser as harness
from browser import Browser, PageReport, png_size

BAR_CHART = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Release report</title>
<style>body { font-family: sans-serif; margin: 24px; } .bar { fill: #3a6ea5; }</style></head>
<body>
<h1>Equivalence classes</h1>
<p>Five classes of at least 5 records.</p>
<svg id="class-sizes" aria-label="Class sizes" width="400" height="200" viewBox="0 0 400 200">
  <defs><clipPath id="clip"><rect width="400" height="200"/></clipPath></defs>
  <line x1="30" y1="180" x2="390" y2="180" stroke="black"/>
  <rect class="bar" x="40" y="80" width="50" height="100"/>
  <rect class="bar" x="110" y="40" width="50" height="140"/>
  <rect class="bar" x="180" y="120" width="50" height="60"/>
  <rect class="bar" x="250" y="100" width="50" height="80"/>
  <rect class="bar" x="320" y="150" width="50" height="30"/>
  <text x="30" y="196">sizes</text>
</svg>
</body></html>
"""


def page(tmp_path: Path, body: str, head: str = "", name: str = "page.html") -> Path:
    """A small HTML file in ``tmp_path``."""
    path = tmp_path / name
    path.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>t</title>{head}</head>"
                    f"<body>{body}</body></html>", encoding="utf-8")
    return path


def render(browser: Browser, html: Path, width: int | None = None) -> PageReport:
    """``html`` rendered, its screenshot beside it."""
    return browser.render_page(html, html.with_suffix(".png"), width=width)


def test_clean_bar_chart(browser: Browser, tmp_path: Path) -> None:
    html = tmp_path / "chart.html"
    html.write_text(BAR_CHART, encoding="utf-8")
    pdf = tmp_path / "chart.pdf"
    report = browser.render_page(html, tmp_path / "shots" / "chart.png", pdf_path=pdf)
    assert report.problems == []
    assert report.title == "Release report"
    assert "Equivalence classes" in report.text and "Five classes" in report.text
    assert "sizes" in report.text  # svg text is visible text too
    [svg] = report.svgs
    assert (svg.id, svg.label, svg.width, svg.height) == ("class-sizes", "Class sizes", 400, 200)
    assert svg.shapes == {"rect": 5, "line": 1, "text": 1}  # the clip path's rect is not drawn
    assert [s.shape_count for s in report.print_svgs] == [7]
    assert report.pdf_pages == 1 and pdf.read_bytes().startswith(b"%PDF")
    shot = tmp_path / "shots" / "chart.png"
    assert report.screenshot == shot and shot.stat().st_size > 1000
    assert png_size(shot.read_bytes()) == report.screenshot_size == (1200, 800)  # short page: one window


def test_width_and_tall_page(browser: Browser, tmp_path: Path) -> None:
    html = page(tmp_path, "<div style='height:3000px;background:linear-gradient(#fff,#ccc)'>tall</div>",
                head="<style>body{margin:0}</style>")
    report = render(browser, html, width=600)
    assert report.problems == []
    assert report.page_height == 3000
    assert report.screenshot_size == (600, 3000)
    assert report.pdf_pages >= 3  # 3000 CSS px is about 2.8 A4 pages


def test_console_error_and_warning_are_reported(browser: Browser, tmp_path: Path) -> None:
    html = page(tmp_path, "<script>console.error('plot data missing'); console.warn('careful');</script>")
    report = render(browser, html)
    levels = {m.level: m for m in report.console}
    assert set(levels) == {"SEVERE", "WARNING"}
    assert "plot data missing" in levels["SEVERE"].message and levels["SEVERE"].source == "console-api"
    assert "careful" in levels["WARNING"].message
    assert report.js_errors == ()
    assert len(report.problems) == 2


def test_uncaught_errors_are_reported(browser: Browser, tmp_path: Path) -> None:
    html = page(tmp_path, "<script>Promise.reject(new Error('async boom'));</script>"
                          "<script>throw new TypeError('draw failed');</script><p>still here</p>")
    report = render(browser, html)
    assert any("TypeError: draw failed" in e for e in report.js_errors), report.js_errors
    assert any("Unhandled promise rejection: Error: async boom" in e for e in report.js_errors), report.js_errors
    assert any("draw failed" in m.message and m.source == "javascript" for m in report.console)
    assert "still here" in report.text


def test_network_attempts_are_reported(browser: Browser, tmp_path: Path) -> None:
    html = page(tmp_path, "<img src='http://example.invalid/x.png' alt=''>",
                head="<link rel='stylesheet' href='https://example.invalid/style.css'>")
    report = render(browser, html)
    assert set(report.network_requests) == {"http://example.invalid/x.png", "https://example.invalid/style.css"}
    assert report.file_requests == ()
    assert "network request: http://example.invalid/x.png" in report.problems


def test_network_attempts_are_blocked(browser: Browser, tmp_path: Path) -> None:
    """Even a server the browser could reach (here our own, on the loopback) receives nothing."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        html = page(tmp_path, f"<img src='{base}/img.png' alt=''>"
                              f"<script>fetch('{base}/data.json').catch(() => {{}});</script>")
        report = render(browser, html)
    finally:
        server.shutdown()
        server.server_close()
    assert set(report.network_requests) == {f"{base}/img.png", f"{base}/data.json"}
    assert hits == []


def test_other_local_files_are_reported(browser: Browser, tmp_path: Path) -> None:
    (tmp_path / "style.css").write_text("body { color: black; }", encoding="utf-8")
    html = page(tmp_path, "<img src='missing.png' alt=''>"
                          "<img src='data:image/gif;base64,R0lGODlhAQABAAAAACwAAAAAAQABAAA=' alt=''>",
                head="<link rel='stylesheet' href='style.css'>")
    report = render(browser, html)
    assert set(report.file_requests) == {(tmp_path / "missing.png").as_uri(), (tmp_path / "style.css").as_uri()}
    assert report.network_requests == ()
    assert any("missing.png" in m.message for m in report.console)  # the failed load is in the log too


def test_empty_and_undrawn_svgs_have_no_shapes(browser: Browser, tmp_path: Path) -> None:
    html = page(tmp_path, "<svg width='100' height='50'></svg>"
                          "<svg width='100' height='50'><defs><rect width='10' height='10'/></defs>"
                          "<rect width='0' height='40'/><circle r='5' style='display:none'/></svg>"
                          "<svg width='100' height='50'><circle cx='20' cy='20' r='10'/></svg>")
    report = render(browser, html)
    assert [(s.shape_count, s.visible) for s in report.svgs] == [(0, True), (0, True), (1, True)]
    assert report.problems == []


def test_print_media_is_emulated(browser: Browser, tmp_path: Path) -> None:
    html = page(tmp_path, "<svg width='100' height='50'><rect width='50' height='20'/></svg>",
                head="<style>@media print { svg { display: none } }</style>")
    report = render(browser, html)
    assert [s.visible for s in report.svgs] == [True]
    assert [(s.visible, s.shape_count) for s in report.print_svgs] == [(False, 0)]
    assert report.pdf_pages == 1


def test_artifacts_are_kept(browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "artifacts"
    monkeypatch.setenv("ANONSET_TEST_ARTIFACTS", str(folder))
    report = render(browser, page(tmp_path, "<p>keep me</p>", name="kept.html"))
    [copy] = report.artifacts
    assert copy.parent == folder
    assert copy.name == "tests_test_browser_harness.py_test_artifacts_are_kept--kept.png"
    assert copy.read_bytes() == report.screenshot.read_bytes()


def test_missing_browser_skips_here_and_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(harness.shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromedriver"):
        harness.require_browser()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        harness.require_browser()
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception):
        harness.require_browser()


def test_missing_page_is_an_error(browser: Browser, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        render(browser, tmp_path / "absent.html")


def test_pdf_page_count_and_png_size() -> None:
    assert harness.pdf_page_count(b"<< /Type /Pages /Count 2 >> << /Type /Page >> << /Type/Page >>") == 2
    assert harness.pdf_page_count(b"<< /Type /Pages /Count 3 >>") == 3
    with pytest.raises(ValueError):
        png_size(b"GIF89a")
