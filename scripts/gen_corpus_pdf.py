#!/usr/bin/env python3
"""Render golden/corpus/northfield_chiller_plant_manual.md into a PDF.

The demo corpus keeps one document as a PDF so that DaemonIQ's ingest is
exercised on real PDF text with page labels. The Markdown file is the source;
the PDF is generated from it and committed next to it:

    pip install fpdf2==2.8.9
    python3 scripts/gen_corpus_pdf.py            # writes golden/corpus/northfield_chiller_plant_manual.pdf
    python3 scripts/gen_corpus_pdf.py -i IN.md -o OUT.pdf

Supported Markdown: '#', '##', '###' headings, paragraphs, '-' bullets,
'1.' numbered items and pipe tables. Text is set in the PDF core font
Helvetica, which only encodes Latin-1, so characters it cannot show are
replaced in the rendering step only (the Markdown keeps '°F' etc.): '°F'
becomes 'deg F', dashes become '-', curly quotes become straight quotes.
The rendered text is checked to be plain ASCII so that pdftotext returns
exactly what is printed.

The output is deterministic: fixed creation date, fixed producer string,
no timestamps, so the same Markdown always yields a byte-identical PDF.
After writing, the script prints the page count and, when pdftotext
(poppler-utils) is installed, the first line of text on each page.
"""

import argparse
import datetime
import hashlib
import os
import re
import shutil
import subprocess
import sys

try:
    from fpdf import FPDF, __version__ as FPDF_VERSION
    from fpdf.fonts import FontFace
except ImportError:  # pragma: no cover - message for people without the dependency
    sys.exit("gen_corpus_pdf: needs fpdf2 (pip install fpdf2==2.8.9)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_IN = os.path.join(ROOT, "golden", "corpus", "northfield_chiller_plant_manual.md")
DEFAULT_OUT = os.path.join(ROOT, "golden", "corpus", "northfield_chiller_plant_manual.pdf")

# Fixed metadata so that the output does not change from run to run.
CREATION_DATE = datetime.datetime(2025, 9, 30, 12, 0, 0, tzinfo=datetime.timezone.utc)
FOOTER_TEXT = "Northfield Campus Central Plant - OM-M-500 Rev B"

# Characters the core fonts cannot show (or that pdftotext would return in a
# form ingest does not expect), mapped to safe ASCII. Order matters: the
# unit forms first, then the bare characters.
REPLACEMENTS = [
    ("°F", " deg F"), ("°C", " deg C"), ("°", " deg"),
    ("\u2013", "-"), ("\u2014", "-"), ("\u2212", "-"), ("\u2011", "-"),
    ("\u2018", "'"), ("\u2019", "'"), ("\u201c", '"'), ("\u201d", '"'),
    ("\u2026", "..."), ("\u00b1", "+/-"), ("\u00b5", "u"), ("\u03bc", "u"),
    ("\u00d7", "x"), ("\u2264", "<="), ("\u2265", ">="), ("\u00a0", " "),
    ("\u2192", "->"),
]


def safe(text):
    """Text as the PDF shows it: core-font safe, plain ASCII, no inline markup."""
    for a, b in REPLACEMENTS:
        text = text.replace(a, b)
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text)   # bold markup
    text = re.sub(r"`([^`]*)`", r"\1", text)        # code spans
    text = re.sub(r"  +", " ", text)                # double spaces left by ' deg F' after a number+space
    bad = sorted({c for c in text if ord(c) > 126 or (ord(c) < 32 and c not in "\n")})
    if bad:
        sys.exit(f"gen_corpus_pdf: no safe replacement for {bad!r} in: {text[:80]!r}")
    return text


class ManualPDF(FPDF):
    def footer(self):
        self.set_y(-15)
        self.set_font("Helvetica", "", 8)
        self.set_text_color(90, 90, 90)
        self.cell(0, 5, FOOTER_TEXT, align="L")
        self.set_x(self.l_margin)
        self.cell(0, 5, f"Page {self.page_no()} of {{nb}}", align="R")
        self.set_text_color(0, 0, 0)


# ---------------------------------------------------------------------------
# Markdown -> blocks
# ---------------------------------------------------------------------------

def parse_blocks(md):
    """Split Markdown into (kind, payload) blocks: h1/h2/h3, para, bullet,
    number, table."""
    blocks = []
    lines = md.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        if not line.strip():
            i += 1
            continue
        m = re.match(r"^(#{1,3})\s+(.*)$", line)
        if m:
            blocks.append((f"h{len(m.group(1))}", m.group(2).strip()))
            i += 1
            continue
        if line.lstrip().startswith("|"):
            rows = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if not all(re.fullmatch(r":?-{3,}:?", c) for c in cells):
                    rows.append(cells)
                i += 1
            blocks.append(("table", rows))
            continue
        m = re.match(r"^\s*[-*]\s+(.*)$", line)
        if m:
            text = [m.group(1)]
            i += 1
            while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                text.append(lines[i].strip())
                i += 1
            blocks.append(("bullet", " ".join(text)))
            continue
        m = re.match(r"^\s*(\d+)\.\s+(.*)$", line)
        if m:
            text = [m.group(2)]
            i += 1
            while i < len(lines) and lines[i].startswith("   ") and lines[i].strip():
                text.append(lines[i].strip())
                i += 1
            blocks.append(("number", (m.group(1), " ".join(text))))
            continue
        para = [line.strip()]
        i += 1
        while i < len(lines) and lines[i].strip() and not re.match(r"^(#{1,3}\s|\s*\||\s*[-*]\s|\s*\d+\.\s)", lines[i]):
            para.append(lines[i].strip())
            i += 1
        blocks.append(("para", " ".join(para)))
    return blocks


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------

BODY_SIZE = 10
LINE_H = 5.2


def ensure_space(pdf, needed_mm):
    """Start a new page if fewer than needed_mm remain above the bottom margin."""
    if pdf.get_y() + needed_mm > pdf.h - pdf.b_margin:
        pdf.add_page()


def col_widths(rows, total):
    """Column widths in proportion to a blend of the average and the (capped)
    longest cell, so that short label columns do not take half the page."""
    ncols = max(len(r) for r in rows)
    weights = []
    for j in range(ncols):
        lens = [len(safe(r[j])) for r in rows if j < len(r)]
        weights.append(max(6.0, 0.5 * sum(lens) / len(lens) + 0.5 * min(max(lens), 50)))
    s = sum(weights)
    return [total * w / s for w in weights]


TABLE_LINE_H = 4.6
TABLE_PAD = 1.2


def table_height(pdf, rows, widths):
    """Approximate rendered height of a table, to keep short tables on one page."""
    pdf.set_font("Helvetica", "B", 9)
    h = 0.0
    for n, r in enumerate(rows):
        if n == 1:
            pdf.set_font("Helvetica", "", 9)
        lines = 1
        for c, w in zip(r, widths):
            wrapped = pdf.multi_cell(w - 2 * TABLE_PAD, TABLE_LINE_H, c, dry_run=True, output="LINES")
            lines = max(lines, len(wrapped))
        h += lines * TABLE_LINE_H + 2 * TABLE_PAD
    return h * 1.05


def render(blocks, title_fallback):
    pdf = ManualPDF(orientation="P", unit="mm", format="A4")
    pdf.set_margins(20, 18, 20)
    pdf.set_auto_page_break(auto=True, margin=20)
    pdf.set_creation_date(CREATION_DATE)
    pdf.set_producer(f"fpdf2 {FPDF_VERSION} via scripts/gen_corpus_pdf.py")
    pdf.set_creator("DaemonIQ scripts/gen_corpus_pdf.py")
    pdf.set_author("Northfield Campus facilities")
    pdf.set_subject("Central chilled-water, condenser-water and hot-water plant: operation and sequences")
    title = next((safe(p) for k, p in blocks if k == "h1"), title_fallback)
    pdf.set_title(title)
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin

    for n, (kind, payload) in enumerate(blocks):
        nxt = blocks[n + 1] if n + 1 < len(blocks) else (None, None)
        if kind == "h1":
            pdf.set_font("Helvetica", "B", 14)
            pdf.multi_cell(width, 8, safe(payload), align="L", new_x="LMARGIN", new_y="NEXT")
            pdf.ln(3)
        elif kind == "h2":
            # Keep a heading with the start of its section, and with the whole
            # of a short table that follows it directly.
            needed = 30
            if nxt[0] == "table":
                rows = [[safe(c) for c in r] for r in nxt[1]]
                th = table_height(pdf, rows, col_widths(nxt[1], width))
                if th < (pdf.h - pdf.t_margin - pdf.b_margin) / 2:
                    needed = max(needed, th + 14)
            ensure_space(pdf, needed)
            pdf.ln(3)
            pdf.set_font("Helvetica", "B", 13)
            pdf.multi_cell(width, 7, safe(payload), align="L", new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1.5)
        elif kind == "h3":
            ensure_space(pdf, 22)
            pdf.ln(1.5)
            pdf.set_font("Helvetica", "B", 11)
            pdf.multi_cell(width, 6, safe(payload), align="L", new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1)
        elif kind == "para":
            pdf.set_font("Helvetica", "", BODY_SIZE)
            if payload.rstrip().endswith(":") and nxt[0] == "table":
                # A lead-in sentence stays on the page of the short table it introduces.
                rows = [[safe(c) for c in r] for r in nxt[1]]
                th = table_height(pdf, rows, col_widths(nxt[1], width))
                pdf.set_font("Helvetica", "", BODY_SIZE)
                ph = len(pdf.multi_cell(width, LINE_H, safe(payload), align="L", dry_run=True, output="LINES")) * LINE_H
                if th < (pdf.h - pdf.t_margin - pdf.b_margin) / 2:
                    ensure_space(pdf, ph + th + 4)
            pdf.multi_cell(width, LINE_H, safe(payload), align="L", new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2.2)
        elif kind in ("bullet", "number"):
            label, text = ("-", payload) if kind == "bullet" else (payload[0] + ".", payload[1])
            pdf.set_font("Helvetica", "", BODY_SIZE)
            ensure_space(pdf, 2 * LINE_H)
            pdf.set_x(pdf.l_margin + 3)
            pdf.cell(6, LINE_H, label)
            pdf.multi_cell(width - 9, LINE_H, safe(text), align="L", new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1.2)
        elif kind == "table":
            rows = [[safe(c) for c in r] for r in payload]
            widths = col_widths(payload, width)
            height = table_height(pdf, rows, widths)
            # Keep tables up to half a page together; longer ones may break
            # (fpdf2 repeats the heading row on the next page).
            ensure_space(pdf, height + 2 if height < (pdf.h - pdf.t_margin - pdf.b_margin) / 2 else 3 * LINE_H + 4)
            pdf.set_font("Helvetica", "", 9)
            with pdf.table(
                col_widths=widths,
                width=width,
                text_align="LEFT",
                line_height=TABLE_LINE_H,
                padding=TABLE_PAD,
                headings_style=FontFace(emphasis="BOLD", fill_color=(225, 225, 225)),
                borders_layout="SINGLE_TOP_LINE",
            ) as table:
                for r in rows:
                    row = table.row()
                    for c in r:
                        row.cell(c)
            pdf.ln(3)
        else:  # pragma: no cover
            raise ValueError(kind)
    return pdf


def page_first_lines(path, pages):
    """First non-empty line of each page's text, via pdftotext, or None."""
    exe = shutil.which("pdftotext")
    if not exe:
        return None
    out = []
    for p in range(1, pages + 1):
        text = subprocess.run([exe, "-layout", "-f", str(p), "-l", str(p), path, "-"],
                              capture_output=True, text=True, check=True).stdout
        first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        out.append(re.sub(r"\s{2,}", "  ", first))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-i", "--input", default=DEFAULT_IN, help="Markdown source")
    ap.add_argument("-o", "--output", default=DEFAULT_OUT, help="PDF to write")
    args = ap.parse_args()

    with open(args.input, encoding="utf-8") as f:
        md = f.read()
    blocks = parse_blocks(md)
    pdf = render(blocks, os.path.splitext(os.path.basename(args.input))[0])
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    pdf.output(args.output)

    pages = pdf.pages_count
    data = open(args.output, "rb").read()
    rel = os.path.relpath(args.output, ROOT)
    print(f"gen_corpus_pdf: wrote {rel} ({pages} pages, {len(data):,} bytes, "
          f"sha256 {hashlib.sha256(data).hexdigest()[:16]}) from {os.path.relpath(args.input, ROOT)} "
          f"with fpdf2 {FPDF_VERSION}")
    firsts = page_first_lines(args.output, pages)
    if firsts is None:
        print("gen_corpus_pdf: pdftotext not found (apt-get install poppler-utils); page text not checked")
    else:
        for n, line in enumerate(firsts, start=1):
            print(f"  page {n}: {line}")
        if any(not line for line in firsts):
            sys.exit("gen_corpus_pdf: a page has no extractable text")


if __name__ == "__main__":
    main()
