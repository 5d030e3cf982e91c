"""Render an HTML file in a real headless Chromium and report what a person would see.

The HTML release report is one self-contained file; this harness opens such a file through a
``file://`` URL in Debian's Chromium, driven by Selenium 4 through the system ``chromedriver``
(Selenium Manager is never asked to download anything), and returns a :class:`PageReport`:
console messages at WARNING level and above, uncaught JavaScript errors, every attempt to fetch a
resource from the network (and every other local file the page reads), each ``<svg>`` with its
size and drawn shapes, the visible text, the title, a full-page PNG screenshot and the page count
of the page printed to PDF.

Network: the page may fetch nothing.  Every http(s)/ws(s)/ftp request is blocked inside the
browser (DevTools ``Network.setBlockedURLs``) and the browser resolves no host name at all
(``--host-resolver-rules``, 127.0.0.1 excepted), so no request leaves the machine; each attempt is still reported,
from the DevTools network events and from the page's resource timing entries.

The tests share one browser, the session fixture ``browser`` (tests/conftest.py, which keeps
the tests using it on one worker)::

    def test_report(browser: Browser, tmp_path: Path) -> None:
        report = browser.render_page(tmp_path / "report.html", tmp_path / "report.png")
        assert not report.problems, report.problems

or :func:`render_page` for a one-off (it starts and stops a browser of its own, about a second).

Missing browser: when selenium, ``chromium`` or ``chromedriver`` is missing, :func:`browser_session`
skips the test with the reason (``apt-get install chromium chromium-driver``), except when the
environment variable ``CI`` is set (to anything but ``""``, ``0``, ``false`` or ``no``): there a
missing browser fails the test.  A browser that is installed but does not start is always an error.

Artifacts: when the environment variable ``ANONSET_TEST_ARTIFACTS`` names a folder (created if
needed), every screenshot (and PDF, when one is asked for) is also copied there, named after the
running test (``PYTEST_CURRENT_TEST``) and the file's own name, so that CI can keep them.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import struct
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

#: Debian's ``/usr/bin/chromium`` is a shell launcher that sources /etc/chromium.d (which turns on
#: remote extensions, among others); the browser itself is this binary.
DEBIAN_CHROMIUM = Path("/usr/lib/chromium/chromium")
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: Screenshots are at most this tall (Chromium's limit for one capture is about 16k device pixels
#: on some builds); a taller page is cut, and :attr:`PageReport.page_height` tells by how much.
MAX_SCREENSHOT_HEIGHT = 16_000
#: Window height while a page is first laid out, before it is resized to the page's height.
INITIAL_HEIGHT = 800
#: What a chart draws with; shapes inside these containers are templates, never drawn themselves.
SHAPES = ("rect", "path", "circle", "ellipse", "line", "polyline", "polygon", "text")
NOT_DRAWN = "defs, clipPath, mask, marker, symbol, pattern"
BLOCKED_URLS = ("http://*", "https://*", "ws://*", "wss://*", "ftp://*")
#: Browser log levels that :attr:`PageReport.console` keeps.
CONSOLE_LEVELS = frozenset({"SEVERE", "ERROR", "WARNING"})
#: URL schemes that are not fetches from outside the page.
INLINE_SCHEMES = ("data:", "blob:", "about:", "javascript:")

CHROME_FLAGS = (
    "--headless=new",
    "--no-sandbox",  # as root in a container there is no user namespace for the sandbox
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",  # a scrollbar would narrow the layout by its width, depending on the height
    "--force-device-scale-factor=1",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    # no host name resolves: nothing can reach a server by name; 127.0.0.1 stays itself, for a server a test runs
    # (a page reaches it only while the test lifts the URL block: Browser.reaching_loopback)
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
)

#: Installed before any script of each page: records uncaught errors and unhandled rejections.
ERROR_RECORDER = """
(() => {
  const errors = [];
  Object.defineProperty(window, '__anonsetHarnessErrors', {value: errors});
  const describe = (value) => (value instanceof Error ? `${value.name}: ${value.message}` : String(value));
  window.addEventListener('error', (event) => {
    if (!(event instanceof ErrorEvent)) return;  // a resource that failed to load: reported elsewhere
    const where = event.filename ? ` (${event.filename}:${event.lineno}:${event.colno})` : '';
    errors.push(`${event.message || describe(event.error)}${where}`);
  }, true);
  window.addEventListener('unhandledrejection', (event) => {
    errors.push(`Unhandled promise rejection: ${describe(event.reason)}`);
  });
})();
"""

#: Resolves once fonts are loaded and two frames have been drawn, plus a moment for timers.
SETTLE = """
const done = arguments[arguments.length - 1];
document.fonts.ready.then(() => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 50))));
"""

PAGE_HEIGHT = """
const d = document.documentElement, b = document.body;
return Math.ceil(Math.max(d.scrollHeight, d.offsetHeight, b ? b.scrollHeight : 0, b ? b.offsetHeight : 0));
"""

SVG_SCAN = """
const shapes = arguments[0], notDrawn = arguments[1];
const areaShapes = new Set(['rect', 'circle', 'ellipse', 'text']);
const drawn = (el) => {
  if (el.closest(notDrawn)) return false;
  const style = getComputedStyle(el);
  if (style.display === 'none' || style.visibility === 'hidden') return false;
  let box;
  try { box = el.getBBox(); } catch (e) { return false; }
  // a rect, circle, ellipse or text of zero width or height draws nothing; a line can be flat
  return areaShapes.has(el.localName) ? box.width > 0 && box.height > 0 : box.width > 0 || box.height > 0;
};
return Array.from(document.querySelectorAll('svg')).map((svg) => {
  const rect = svg.getBoundingClientRect();
  const title = svg.querySelector(':scope > title');
  const counts = {};
  for (const el of svg.querySelectorAll(shapes.join(','))) {
    if (drawn(el)) counts[el.localName] = (counts[el.localName] || 0) + 1;
  }
  return {
    id: svg.id || '',
    label: svg.getAttribute('aria-label') || (title ? title.textContent.trim() : ''),
    width: rect.width,
    height: rect.height,
    shapes: counts,
  };
});
"""

RESOURCE_NAMES = "return performance.getEntriesByType('resource').map((entry) => entry.name);"


@dataclass(frozen=True)
class ConsoleMessage:
    """One entry of the browser log: ``level`` is SEVERE or WARNING, ``source`` e.g. console-api,
    javascript (an uncaught error), network (a resource that failed to load)."""

    level: str
    source: str
    message: str


@dataclass(frozen=True)
class SvgInfo:
    """One ``<svg>`` element as laid out: its rendered size in CSS pixels and its drawn shapes.

    ``shapes`` counts, by element name (rect, path, circle, ellipse, line, polyline, polygon,
    text), the shapes inside the svg that are drawn: not in defs/clipPath/mask/marker/symbol/
    pattern, not ``display: none`` or ``visibility: hidden``, and with a bounding box of some
    width and height (a line or path: width or height).
    ``label`` is the svg's aria-label, else the text of its own ``<title>``.
    """

    id: str
    label: str
    width: float
    height: float
    shapes: dict[str, int]

    @property
    def shape_count(self) -> int:
        """Number of drawn shapes of every kind."""
        return sum(self.shapes.values())

    @property
    def visible(self) -> bool:
        """Whether the svg takes room on the page."""
        return self.width > 0 and self.height > 0


@dataclass(frozen=True)
class PageReport:
    """What the browser saw of one page.

    ``network_requests`` are the URLs the page tried to fetch from anywhere but itself and local
    files (all blocked); ``file_requests`` the other local files it tried to read (a
    self-contained page reads none).  ``svgs`` are measured on screen, ``print_svgs`` the same
    elements with print media emulated; ``pdf_pages`` is the page count of the page printed to
    PDF (A4, unless the page's ``@page`` rule says otherwise).  ``screenshot_size`` is the PNG's
    (width, height) in pixels; ``page_height`` the full page height, taller than the screenshot
    only when the page exceeds :data:`MAX_SCREENSHOT_HEIGHT`.
    """

    url: str
    title: str
    text: str
    console: tuple[ConsoleMessage, ...]
    js_errors: tuple[str, ...]
    network_requests: tuple[str, ...]
    file_requests: tuple[str, ...]
    svgs: tuple[SvgInfo, ...]
    print_svgs: tuple[SvgInfo, ...]
    pdf_pages: int
    screenshot: Path
    screenshot_size: tuple[int, int]
    page_height: int
    artifacts: tuple[Path, ...]

    @property
    def problems(self) -> list[str]:
        """Everything a clean self-contained page must not show, one line each (empty if clean)."""
        return ([f"console {m.level} ({m.source}): {m.message}" for m in self.console]
                + [f"uncaught JavaScript error: {e}" for e in self.js_errors]
                + [f"network request: {u}" for u in self.network_requests]
                + [f"local file request: {u}" for u in self.file_requests])


def in_ci() -> bool:
    """Whether the environment variable CI says this is a CI run (where nothing may be skipped)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def find_chromium() -> str | None:
    """Path of the Chromium binary, or None."""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            if name == "chromium" and DEBIAN_CHROMIUM.is_file() and os.access(DEBIAN_CHROMIUM, os.X_OK):
                return str(DEBIAN_CHROMIUM)
            return found
    return None


def browser_unavailable() -> str | None:
    """Why no browser test can run here (what is missing), or None when everything is installed."""
    missing = []
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package (pip install -r requirements.lock)")
    if find_chromium() is None:
        missing.append("chromium (apt-get install chromium)")
    if shutil.which("chromedriver") is None:
        missing.append("chromedriver (apt-get install chromium-driver)")
    return f"real-browser test needs {', '.join(missing)}" if missing else None


def require_browser() -> None:
    """Skip the calling test, with the reason, when the browser is missing; fail instead under CI."""
    reason = browser_unavailable()
    if reason is None:
        return
    if in_ci():
        pytest.fail(f"{reason}: CI is set, so a missing browser is a failure, not a skip", pytrace=False)
    pytest.skip(f"{reason}; skipped here, a failure when CI is set")


class Browser:
    """One headless Chromium session; :meth:`render_page` any number of pages, then :meth:`close`."""

    def __init__(self, width: int = 1200) -> None:
        from selenium import webdriver
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.chrome.service import Service

        chromium, chromedriver = find_chromium(), shutil.which("chromedriver")
        if chromium is None or chromedriver is None:
            raise RuntimeError(browser_unavailable())
        self.width = width
        self._profile = tempfile.TemporaryDirectory(prefix="anonset-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in (*CHROME_FLAGS, f"--user-data-dir={self._profile.name}",
                     f"--window-size={width},{INITIAL_HEIGHT}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        try:
            self.driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
        except WebDriverException as exc:
            self._profile.cleanup()
            raise RuntimeError(f"Chromium ({chromium}) did not start through {chromedriver}: {exc.msg}") from exc
        try:
            self.driver.set_page_load_timeout(60)
            self.driver.set_script_timeout(30)
            self._cdp("Network.enable", {})
            self._cdp("Network.setBlockedURLs", {"urls": list(BLOCKED_URLS)})
            self._cdp("Page.addScriptToEvaluateOnNewDocument", {"source": ERROR_RECORDER})
            # The window is taller and wider than the page area by the browser's own frame.
            self.driver.set_window_size(width, INITIAL_HEIGHT)
            inner = self.driver.execute_script("return [window.innerWidth, window.innerHeight];")
            self._frame = (width - int(inner[0]), INITIAL_HEIGHT - int(inner[1]))
        except Exception:
            self.close()
            raise
        caps = self.driver.capabilities
        #: e.g. "Chromium 156.0.8078.108, ChromeDriver 156.0.8078.108"
        self.version = (f"Chromium {caps.get('browserVersion', '?')}, ChromeDriver "
                        f"{str(caps.get('chrome', {}).get('chromedriverVersion', '?')).split(' ')[0]}")

    def close(self) -> None:
        """Quit the browser and remove its profile."""
        driver = getattr(self, "driver", None)
        if driver is not None:
            driver.quit()
            self.driver = None
        self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def reaching_loopback(self) -> Iterator[None]:
        """Let pages fetch over http while the block is lifted (a server this test runs on 127.0.0.1).

        Host names still resolve to nothing (``--host-resolver-rules``), so only an address such as
        127.0.0.1 is reachable; the block is back when the block ends.
        """
        self._cdp("Network.setBlockedURLs", {"urls": []})
        try:
            yield
        finally:
            self._cdp("Network.setBlockedURLs", {"urls": list(BLOCKED_URLS)})

    def _cdp(self, command: str, params: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = self.driver.execute_cdp_cmd(command, params)
        return result

    def _resize(self, width: int, height: int) -> None:
        """Make the page area (the viewport) ``width`` x ``height`` CSS pixels."""
        self.driver.set_window_size(width + self._frame[0], height + self._frame[1])
        self.driver.execute_async_script(SETTLE)

    def _scan_svgs(self) -> tuple[SvgInfo, ...]:
        raw = self.driver.execute_script(SVG_SCAN, list(SHAPES), NOT_DRAWN)
        return tuple(SvgInfo(id=s["id"], label=s["label"], width=float(s["width"]), height=float(s["height"]),
                             shapes={k: int(v) for k, v in s["shapes"].items()}) for s in raw)

    def render_page(self, html_path: str | os.PathLike[str], screenshot_path: str | os.PathLike[str], *,
                    width: int | None = None, pdf_path: str | os.PathLike[str] | None = None) -> PageReport:
        """Open ``html_path`` at ``width`` CSS pixels (the session's width by default), wait until it
        is loaded and drawn, save a full-page PNG screenshot to ``screenshot_path`` (and the page
        printed to PDF to ``pdf_path``, if given) and report what the browser saw."""
        page = Path(html_path).resolve()
        if not page.is_file():
            raise FileNotFoundError(f"no page to render at {page}")
        width = width or self.width
        url = page.as_uri()
        self._resize(width, INITIAL_HEIGHT)
        self.driver.get_log("browser")  # drop what earlier pages left behind
        self.driver.get_log("performance")
        self.driver.get(url)  # returns after the load event
        self.driver.execute_async_script(SETTLE)

        # Make the viewport as tall as the page, so the screenshot holds all of it; the height can
        # change once more with the viewport (vh units), hence a second look.
        page_height = INITIAL_HEIGHT
        for _ in range(3):
            page_height = int(self.driver.execute_script(PAGE_HEIGHT))
            shot_height = max(1, min(page_height, MAX_SCREENSHOT_HEIGHT))
            if self.driver.execute_script("return window.innerHeight;") == shot_height:
                break
            self._resize(width, shot_height)
        screenshot = Path(screenshot_path)
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        png = self.driver.get_screenshot_as_png()
        screenshot.write_bytes(png)

        title = self.driver.title
        text = self.driver.execute_script("return document.body ? document.body.innerText : '';")
        svgs = self._scan_svgs()
        js_errors = tuple(self.driver.execute_script("return window.__anonsetHarnessErrors || [];"))
        resources = list(self.driver.execute_script(RESOURCE_NAMES))

        self._cdp("Emulation.setEmulatedMedia", {"media": "print"})
        try:
            self.driver.execute_async_script(SETTLE)
            print_svgs = self._scan_svgs()
        finally:
            self._cdp("Emulation.setEmulatedMedia", {"media": ""})
        pdf = base64.b64decode(self._cdp("Page.printToPDF", {
            "printBackground": True, "preferCSSPageSize": True, "paperWidth": 8.27, "paperHeight": 11.69,
        })["data"])
        if pdf_path is not None:
            Path(pdf_path).parent.mkdir(parents=True, exist_ok=True)
            Path(pdf_path).write_bytes(pdf)

        console = tuple(ConsoleMessage(level=e.get("level", ""), source=e.get("source", ""),
                                       message=e.get("message", ""))
                        for e in self.driver.get_log("browser") if e.get("level") in CONSOLE_LEVELS)
        network, files = classify_requests(url, [*requested_urls(self.driver.get_log("performance")), *resources])
        return PageReport(
            url=url, title=title, text=text, console=console, js_errors=js_errors,
            network_requests=network, file_requests=files, svgs=svgs, print_svgs=print_svgs,
            pdf_pages=pdf_page_count(pdf), screenshot=screenshot, screenshot_size=png_size(png),
            page_height=page_height,
            artifacts=keep_artifacts([screenshot] + ([Path(pdf_path)] if pdf_path is not None else [])),
        )


@contextmanager
def browser_session(width: int = 1200) -> Iterator[Browser]:
    """A :class:`Browser` for a fixture; skips (fails under CI) when the browser is missing."""
    require_browser()
    browser = Browser(width)
    try:
        yield browser
    finally:
        browser.close()


def render_page(html_path: str | os.PathLike[str], screenshot_path: str | os.PathLike[str], *,
                width: int = 1200, pdf_path: str | os.PathLike[str] | None = None,
                browser: Browser | None = None) -> PageReport:
    """:meth:`Browser.render_page` in ``browser``, or in a browser of its own started for this page."""
    if browser is not None:
        return browser.render_page(html_path, screenshot_path, width=width, pdf_path=pdf_path)
    with browser_session(width) as own:
        return own.render_page(html_path, screenshot_path, width=width, pdf_path=pdf_path)


def requested_urls(performance_log: list[dict[str, Any]]) -> list[str]:
    """URLs of the requests (and web sockets) in a chromedriver performance log."""
    urls = []
    for entry in performance_log:
        message = json.loads(entry["message"]).get("message", {})
        params = message.get("params", {})
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(params.get("request", {}).get("url", ""))
        elif message.get("method") == "Network.webSocketCreated":
            urls.append(params.get("url", ""))
    return [u for u in urls if u]


def classify_requests(page_url: str, urls: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(network URLs, other local files) among ``urls``, each once in first-seen order; the page
    itself and inline (data:, blob:, about:) URLs are neither."""
    network: dict[str, None] = {}
    files: dict[str, None] = {}
    for url in urls:
        if url.split("#")[0] == page_url or url.startswith(INLINE_SCHEMES):
            continue
        (files if url.startswith("file:") else network)[url] = None
    return tuple(network), tuple(files)


def pdf_page_count(pdf: bytes) -> int:
    """Pages in a PDF written by Chromium (uncompressed page objects; else the page tree's /Count)."""
    pages = len(re.findall(rb"/Type\s*/Page(?![A-Za-z])", pdf))
    if pages:
        return pages
    counts = [int(c) for c in re.findall(rb"/Count\s+(\d+)", pdf)]
    return max(counts, default=0)


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) of a PNG image, from its IHDR chunk."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG image")
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)


def keep_artifacts(paths: list[Path]) -> tuple[Path, ...]:
    """Copy ``paths`` into the folder named by ANONSET_TEST_ARTIFACTS, if set; the copies."""
    folder = os.environ.get("ANONSET_TEST_ARTIFACTS")
    if not folder:
        return ()
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
    prefix = re.sub(r"[^A-Za-z0-9._-]+", "_", test).strip("_")
    copies = []
    for path in paths:
        copy = target / (f"{prefix}--{path.name}" if prefix else path.name)
        shutil.copyfile(path, copy)
        copies.append(copy)
    return tuple(copies)
