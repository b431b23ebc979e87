"""The static site (``generated/docs/site/``): every page renders, readable at 1,400 px, links resolve, offline.

Static checks run everywhere; the browser checks use Debian's headless ``chromium`` (skipped without it):
one harness page loads every site page in a 1,400 px iframe and measures it (tables within the viewport,
no clipped cell, formulas typeset as MathML, no raw ``$$`` or ``<term>``), and one screenshot per page type
is checked for sanity (size, not blank).
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import re
import shutil
import struct
import subprocess
import threading
import zlib
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath

import pytest

from generator.emit import docs
from generator.generate import environment
from generator.loader import load_project

REPO = Path(__file__).resolve().parents[1]
PROJECT = load_project(REPO / "specs")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WIDTH = 1400


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("site")
    for rel, text in docs.files(PROJECT, environment()).items():
        if rel.startswith("docs/site/"):
            path = root / rel[len("docs/site/") :]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return root


def pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html") if p.name != "harness.html")


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hrefs, self.loads, self.ids, self.tags = [], [], set(), set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.add(tag)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])
        for key in ("src", "href"):
            if tag != "a" and attrs.get(key):
                self.loads.append(attrs[key])


def _parse(path: Path) -> _Refs:
    parser = _Refs()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_every_page_is_there(site):
    found = set(pages(site))
    expected = {"index.html", "support_matrix.html"}
    for info in PROJECT.ops:
        for lang in ("zh", "en"):
            expected |= {f"{lang}/{info.spec.name}.html", f"{lang}/maintainers/{info.spec.name}.html"}
    assert found == expected
    assert (site / "assets" / "site.css").is_file() and (site / "assets" / "matrix.js").is_file()


def test_links_resolve_and_nothing_loads_from_the_network(site):
    problems = []
    parsed = {rel: _parse(site / rel) for rel in pages(site)}
    for rel, refs in parsed.items():
        for load in refs.loads:
            if re.match(r"^[a-z]+:|^//", load):
                problems.append(f"{rel}: loads {load}")
            elif not (site / PurePosixPath(rel).parent / load).resolve().is_file():
                problems.append(f"{rel}: missing asset {load}")
        for href in refs.hrefs:
            if href.startswith("https://"):
                continue
            if re.match(r"^[a-z]+:", href):
                problems.append(f"{rel}: unexpected link {href}")
                continue
            path, _, fragment = href.partition("#")
            target = (site / PurePosixPath(rel).parent / path).resolve() if path else (site / rel).resolve()
            if not target.is_file() or site.resolve() not in target.parents:
                problems.append(f"{rel}: broken link {href}")
                continue
            if fragment:
                fragment = html.unescape(re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), fragment))
                ids = parsed[target.relative_to(site.resolve()).as_posix()].ids
                if fragment not in ids and fragment.encode("latin-1", "ignore").decode("utf-8", "ignore") not in ids:
                    problems.append(f"{rel}: no anchor #{fragment} in {path or rel}")
    assert not problems, "\n".join(problems)


def test_pages_have_no_raw_markup(site):
    for rel in pages(site):
        text = (site / rel).read_text(encoding="utf-8")
        assert "$$" not in text, rel
        assert "<term>" not in text, rel
        assert not re.search(r"<script(?![^>]*\bsrc=\"(\.\./)*assets/matrix\.js\")", text), rel
    for info in PROJECT.ops:
        if info.spec.formula:
            for lang in ("zh", "en"):
                assert "<math " in (site / f"{lang}/{info.spec.name}.html").read_text(encoding="utf-8")


def test_zh_en_switch(site):
    for info in PROJECT.ops:
        zh = _parse(site / f"zh/{info.spec.name}.html")
        assert f"../en/{info.spec.name}.html" in zh.hrefs
        en = _parse(site / f"en/maintainers/{info.spec.name}.html")
        assert f"../../zh/maintainers/{info.spec.name}.html" in en.hrefs
    index = _parse(site / "index.html")
    for info in PROJECT.ops:
        assert f"zh/{info.spec.name}.html" in index.hrefs
    matrix = _parse(site / "support_matrix.html")
    for info in PROJECT.ops:
        assert f"zh/{info.spec.name}.html" in matrix.hrefs and f"en/{info.spec.name}.html" in matrix.hrefs


# ---------------------------------------------------------------------------------------------
# in Chromium


HARNESS = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<iframe id="f" style="width: %(width)dpx; height: 900px; border: 0"></iframe><pre id="result">pending</pre>
<script>
var pages = %(pages)s, results = {}, i = 0, frame = document.getElementById("f");
function measure(doc, win) {
  var out = {tables: 0, wide: [], clipped: [], maths: 0, flat_maths: 0, raw: [], text: doc.body.innerText.length,
             scroll: doc.documentElement.scrollWidth};
  var tables = doc.querySelectorAll("table");
  out.tables = tables.length;
  for (var t = 0; t < tables.length; t++) {
    var box = tables[t].getBoundingClientRect();
    if (box.right > win.innerWidth + 1) { out.wide.push(t + ":" + Math.round(box.right)); }
    var cells = tables[t].querySelectorAll("td, th");
    for (var c = 0; c < cells.length; c++) {
      var cell = cells[c];
      if (cell.offsetParent !== null && cell.scrollWidth > cell.clientWidth + 2) { out.clipped.push(t + "/" + c); }
    }
  }
  var maths = doc.querySelectorAll("math");
  out.maths = maths.length;
  for (var m = 0; m < maths.length; m++) {
    if (maths[m].getBoundingClientRect().height < 8) { out.flat_maths++; }
  }
  out.term_elements = doc.getElementsByTagName("term").length;
  var text = doc.body.innerText;
  ["$$", "<term>", "</term>", "\\\\frac"].forEach(function (raw) { if (text.indexOf(raw) >= 0) { out.raw.push(raw); } });
  return out;
}
function next() {
  if (i >= pages.length) { document.getElementById("result").textContent = JSON.stringify(results); return; }
  frame.onload = function () {
    try { results[pages[i]] = measure(frame.contentDocument, frame.contentWindow); }
    catch (e) { results[pages[i]] = {error: String(e)}; }
    i++; setTimeout(next, 0);
  };
  frame.src = pages[i];
}
next();
</script></body></html>"""


@pytest.fixture(scope="module")
def server(site):
    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _chromium(tmp: Path, *args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={tmp / 'profile'}",
        *args,
    ]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"chromium could not run: {exc}")


def test_every_page_renders_within_the_viewport(site, server, tmp_path):
    listed = pages(site)
    (site / "harness.html").write_text(HARNESS % {"width": WIDTH, "pages": json.dumps(listed)}, encoding="utf-8")
    proc = _chromium(
        tmp_path,
        f"--window-size={WIDTH + 40},1000",
        "--virtual-time-budget=60000",
        "--dump-dom",
        server + "harness.html",
    )
    match = re.search(r'<pre id="result">(.*?)</pre>', proc.stdout, re.S)
    if proc.returncode != 0 or not match:
        pytest.skip(f"chromium could not render the harness: {proc.stderr[-500:]}")
    results = json.loads(html.unescape(match.group(1)))
    assert sorted(results) == listed
    for rel, r in results.items():
        assert "error" not in r, (rel, r)
        assert r["text"] > 200, rel
        assert r["tables"] >= 1, rel
        assert not r["wide"], (rel, r["wide"])
        assert not r["clipped"], (rel, r["clipped"])
        assert r["scroll"] <= WIDTH + 1, (rel, r["scroll"])
        assert r["term_elements"] == 0, rel
        # maintainers' pages may quote "<term>" as text when they describe a source document's markup
        raw = [m for m in r["raw"] if "/maintainers/" not in rel or "term" not in m]
        assert not raw, (rel, raw)
        assert r["flat_maths"] == 0, rel
    for info in PROJECT.ops:
        if info.spec.formula:
            assert results[f"zh/{info.spec.name}.html"]["maths"] == len(info.spec.formula.strip().splitlines())


def _png(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and raw rows (RGB or RGBA, 8-bit, non-interlaced) of a PNG, unfiltered."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line[i] for i in range(0, stride, bpp)))  # red channel is enough
        prev = line
    return width, height, rows


@pytest.mark.parametrize(
    "page",
    ["zh/aclnnConvolutionBackward.html", "en/maintainers/aclnnEluBackward.html", "index.html", "support_matrix.html"],
)
def test_screenshot_per_page_type(site, server, tmp_path, page):
    shot = tmp_path / "shot.png"
    proc = _chromium(tmp_path, f"--window-size={WIDTH},900", f"--screenshot={shot}", server + page, timeout=90)
    if proc.returncode != 0 or not shot.is_file():
        pytest.skip(f"chromium could not take a screenshot: {proc.stderr[-500:]}")
    width, height, rows = _png(shot)
    assert (width, height) == (WIDTH, 900)
    background = rows[-1][-1]
    ink = sum(1 for row in rows[::4] for v in row[::4] if abs(v - background) > 60)
    sampled = (height // 4 + 1) * (width // 4 + 1)
    assert 0.005 < ink / sampled < 0.6, ink / sampled  # text and tables, not blank and not a solid block
    assert len({row[width // 2] for row in rows}) > 3  # more than a flat colour down the middle
