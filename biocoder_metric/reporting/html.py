"""Render the report as one self-contained HTML file.

Why self-contained: a report is mailed, attached to issues and opened offline, so the
page carries everything: plots as base64 PNG ``data:`` URIs, CSS inline, and a
Content-Security-Policy that forbids any network access (a page that tried to fetch
something would show it as a console error, which the browser test checks). The SVG of
every plot is written next to it for reuse. A tiny inline script records, once the page
has loaded, how many images decoded and any script error, in ``data-*`` attributes of
``<body>``: that is what the headless-browser test reads.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#222}
h1{font-size:1.6rem} h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:0.5rem 0 1rem} th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;font-size:0.9rem}
th{background:#f3f3f3} td.num{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:1rem 0} figure img{max-width:100%;border:1px solid #eee}
pre{background:#f7f7f7;padding:6px;overflow-x:auto;max-height:20rem;font-size:0.8rem}
.note{color:#666;font-size:0.85rem} details{margin:0.4rem 0}
"""

_SCRIPT = """
window.addEventListener('error', function (e) {
  var b = document.body; b.dataset.jsErrors = String(Number(b.dataset.jsErrors || '0') + 1);
});
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.querySelectorAll('img'));
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; });
  var b = document.body;
  b.dataset.imagesTotal = String(imgs.length);
  b.dataset.imagesLoaded = String(ok.length);
  b.dataset.tables = String(document.querySelectorAll('table').length);
  b.dataset.jsErrors = b.dataset.jsErrors || '0';
  b.dataset.ready = 'yes';
});
"""


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def table(
    table_id: str, headers: Sequence[str], rows: Sequence[Sequence[Any]], *, numeric: Sequence[int] = ()
) -> str:
    """An HTML table; cells are escaped unless they are :class:`Raw`."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            content = cell.text if isinstance(cell, Raw) else esc(cell)
            cls = ' class="num"' if i in numeric else ""
            cells.append(f"<td{cls}>{content}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table id="{esc(table_id)}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


class Raw:
    """Trusted HTML (built by this module from escaped parts)."""

    def __init__(self, text: str) -> None:
        self.text = text


def figure(out_dir: Path, stem: str, caption: str) -> str:
    """An ``<img>`` with the PNG inlined, and a link to the SVG file next to the report."""
    data = base64.b64encode((out_dir / f"{stem}.png").read_bytes()).decode("ascii")
    return (
        f'<figure id="fig-{esc(stem)}"><img alt="{esc(caption)}" data-plot="{esc(stem)}" '
        f'src="data:image/png;base64,{data}"><figcaption>{esc(caption)} '
        f'(<a href="{esc(stem)}.svg">SVG</a>, <a href="{esc(stem)}.png">PNG</a>)</figcaption></figure>'
    )


def page(title: str, sections: Sequence[tuple[str, str, str]], *, intro: str = "") -> str:
    """The whole document: ``sections`` are ``(anchor, heading, html body)``."""
    toc = "".join(f'<li><a href="#{esc(a)}">{esc(h)}</a></li>' for a, h, _ in sections)
    body = "".join(
        f'<section id="{esc(a)}"><h2>{esc(h)}</h2>{content}</section>' for a, h, content in sections
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        f"<title>{esc(title)}</title><style>{_CSS}</style><script>{_SCRIPT}</script></head>"
        f"<body><h1>{esc(title)}</h1>{intro}<nav><ul>{toc}</ul></nav>{body}</body></html>\n"
    )


def failure_block(anchor: str, heading: str, failure: Mapping[str, Any] | None) -> str:
    """The first failing case of one sample: expected vs actual output tails and stderr."""
    if not failure:
        return f'<details id="{esc(anchor)}"><summary>{esc(heading)}</summary><p class="note">no case details recorded</p></details>'
    parts = [
        f"case {esc(failure.get('case'))}, status {esc(failure.get('status'))}, exit code {esc(failure.get('returncode'))}"
    ]
    for key, label in (
        ("expected_tail", "expected (tail)"),
        ("actual_tail", "actual (tail)"),
        ("stderr_tail", "stderr (tail)"),
    ):
        text = failure.get(key)
        if text:
            parts.append(f"<div><b>{label}</b><pre>{esc(text)}</pre></div>")
    return f'<details id="{esc(anchor)}"><summary>{esc(heading)}</summary><p>{parts[0]}</p>{"".join(parts[1:])}</details>'
