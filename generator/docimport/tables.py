"""HTML and Markdown tables of a doc, with the line of every cell.

``html_tables(text, first_line)`` finds every ``<table>`` in a block of doc text and returns its
rows as :class:`Cell` lists exactly as written (``rows``) and as a rectangular grid with
``rowspan``/``colspan`` expanded (``grid``). Sloppy HTML is tolerated: unclosed cells and rows,
stray end tags, ``<il>`` typos, rowspans that run past the table. ``markdown_tables`` reads pipe
tables the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from generator.docimport.text import cell_text, strip_tags


@dataclass
class Cell:
    html: str  # inner HTML as written
    line: int
    header: bool = False  # <th>
    rowspan: int = 1
    colspan: int = 1
    npu: str | None = None  # the npu="..." comment that wraps the cell, if any

    @property
    def text(self) -> str:
        return cell_text(self.html)


@dataclass
class Table:
    line: int
    end_line: int
    rows: list[list[Cell]] = field(default_factory=list)
    closed: bool = True

    @property
    def header(self) -> list[Cell]:
        """The first row (usually the ``<th>`` row)."""
        return self.rows[0] if self.rows else []

    def grid(self) -> list[list[Cell | None]]:
        """Rows with row/column spans expanded (a spanned cell repeats); ragged rows padded with None."""
        grid: list[list[Cell | None]] = []
        carry: dict[int, tuple[Cell, int]] = {}  # column -> (cell, rows left)
        for row in self.rows:
            out: list[Cell | None] = []
            cells = list(row)
            col = 0
            while cells or any(c >= col for c in carry):
                if col in carry:
                    cell, left = carry[col]
                    out.append(cell)
                    if left <= 1:
                        del carry[col]
                    else:
                        carry[col] = (cell, left - 1)
                    col += 1
                    continue
                if not cells:
                    out.append(None)
                    col += 1
                    continue
                cell = cells.pop(0)
                for _ in range(max(1, min(cell.colspan, 64))):
                    if cell.rowspan > 1:
                        carry[col] = (cell, min(cell.rowspan, 10_000) - 1)
                    out.append(cell)
                    col += 1
            grid.append(out)
        width = max((len(r) for r in grid), default=0)
        return [r + [None] * (width - len(r)) for r in grid]


class _Parser(HTMLParser):
    def __init__(self, text: str, first_line: int):
        super().__init__(convert_charrefs=False)
        self.text = text
        self.first_line = first_line
        self.starts = [0]
        for m in re.finditer("\n", text):
            self.starts.append(m.end())
        self.tables: list[Table] = []
        self.stack: list[Table] = []
        self.row: list[Cell] | None = None
        self.cell: Cell | None = None
        self.cell_start = 0
        self.npu: str | None = None

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.starts[line - 1] + col

    def _line(self) -> int:
        return self.first_line + self.getpos()[0] - 1

    def _close_cell(self, end: int) -> None:
        if self.cell is not None and self.row is not None:
            self.cell.html = self.text[self.cell_start : end]
            self.row.append(self.cell)
        self.cell = None

    def _close_row(self, end: int) -> None:
        self._close_cell(end)
        if self.row is not None and self.stack:
            self.stack[-1].rows.append(self.row)
        self.row = None

    def handle_starttag(self, tag, attrs):
        tag = tag.lower()
        here = self._offset()
        if tag == "table":
            if self.stack:  # a nested table stays text of the enclosing cell
                return
            self.stack.append(Table(self._line(), self._line()))
        elif not self.stack:
            return
        elif tag == "tr":
            self._close_row(here)
            self.row = []
        elif tag in ("td", "th"):
            if self.row is None:
                self.row = []
            self._close_cell(here)
            values = dict(attrs)
            self.cell = Cell(
                "",
                self._line(),
                header=tag == "th",
                rowspan=_span(values.get("rowspan")),
                colspan=_span(values.get("colspan")),
                npu=self.npu,
            )
            self.cell_start = here + len(self.get_starttag_text() or "")

    def handle_endtag(self, tag):
        tag = tag.lower()
        if not self.stack:
            return
        here = self._offset()
        if tag in ("td", "th"):
            self._close_cell(here)
        elif tag == "tr":
            self._close_row(here)
        elif tag == "table":
            self._close_row(here)
            table = self.stack.pop()
            table.end_line = self._line()
            self.tables.append(table)
        elif tag in ("thead", "tbody"):
            self._close_row(here)

    def handle_comment(self, data):
        m = re.search(r'npu\s*=\s*"([^"]*)"', data)
        if m:
            self.npu = m.group(1)
        elif re.match(r"\s*end\b", data):
            self.npu = None

    def finish(self, last_line: int) -> list[Table]:
        self.close()
        if self.stack:
            self._close_row(len(self.text))
            table = self.stack.pop()
            table.closed = False
            table.end_line = last_line
            self.tables.append(table)
        return self.tables


def _span(value) -> int:
    try:
        return max(1, int(str(value).strip()))
    except (TypeError, ValueError):
        return 1


def html_tables(text: str, first_line: int) -> list[Table]:
    """Every top-level ``<table>`` of ``text`` (whose first line is ``first_line``)."""
    if "<table" not in text.lower():
        return []
    parser = _Parser(text, first_line)
    try:
        parser.feed(text)
    except Exception:  # HTMLParser is tolerant; a pathological input must not crash the import
        pass
    return parser.finish(first_line + text.count("\n"))


_PIPE_ROW = re.compile(r"^\s*\|(.*)\|?\s*$")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


def markdown_tables(lines: list[str], first_line: int) -> list[Table]:
    """Pipe tables (``| a | b |`` rows with a ``|---|`` separator) in ``lines``."""
    tables: list[Table] = []
    i = 0
    while i < len(lines):
        if _PIPE_ROW.match(lines[i]) and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1]):
            table = Table(first_line + i, first_line + i)
            table.rows.append(_pipe_cells(lines[i], first_line + i, header=True))
            j = i + 2
            while j < len(lines) and _PIPE_ROW.match(lines[j]):
                table.rows.append(_pipe_cells(lines[j], first_line + j))
                j += 1
            table.end_line = first_line + j - 1
            tables.append(table)
            i = j
        else:
            i += 1
    return tables


def _pipe_cells(line: str, number: int, header: bool = False) -> list[Cell]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") else body
    parts = re.split(r"(?<!\\)\|", body)
    return [Cell(part.strip(), number, header=header) for part in parts]


def header_texts(table: Table) -> list[str]:
    return [strip_tags(c.html).strip() for c in table.header]
