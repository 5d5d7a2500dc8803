"""Reads svc's exports and feeds with real readers, for the api suite's
`exports::` and `feeds::` tests (scripts/test.sh makes a venv with
`openpyxl` and `feedparser`).

    readers_check.py xlsx BOOK.xlsx DATA.json
        Opens the workbook with openpyxl and compares every cell with the
        run's JSON data, laid out as svc documents it: a header row of the
        columns (objects' keys in first-seen order, `value` for items that
        are not objects), one row per item; numbers, booleans and text
        typed as such, arrays and objects as compact JSON text, null and a
        missing key empty.

    readers_check.py feed FEED.xml EXPECTED.json
        Parses the feed with feedparser and compares it with EXPECTED:
        {"version": "atom10"|"rss20", "title": ..., "entries": [{"title",
        "link", "id", "content_has": [text the entry's HTML content holds]}, ...]}.

Prints one line starting with `ok` and exits 0, or says what differs and
exits 1.
"""

import json
import sys

EXACT_INTEGER = 2**53
MAX_CELL_TEXT = 32767


def cut_utf16(text):
    units = 0
    for i, c in enumerate(text):
        units += 2 if ord(c) > 0xFFFF else 1
        if units > MAX_CELL_TEXT:
            return text[:i]
    return text


def expected_cell(value):
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        if isinstance(value, int) and abs(value) > EXACT_INTEGER:
            return str(value)
        return value
    if isinstance(value, str):
        return cut_utf16(value)
    return cut_utf16(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def expected_grid(items):
    columns = []  # ("key", name) or ("whole", None)
    for item in items:
        if isinstance(item, dict):
            for key in item:
                if ("key", key) not in columns:
                    columns.append(("key", key))
        elif ("whole", None) not in columns:
            columns.append(("whole", None))
    value_taken = ("key", "value") in columns
    names = [name if kind == "key" else ("(value)" if value_taken else "value") for kind, name in columns]
    rows = []
    for item in items:
        row = []
        for kind, name in columns:
            if kind == "key" and isinstance(item, dict) and name in item:
                row.append(expected_cell(item[name]))
            elif kind == "whole" and not isinstance(item, dict):
                row.append(expected_cell(item))
            else:
                row.append(None)
        rows.append(row)
    return names, rows


def same(got, want):
    if want is None:
        return got is None
    if isinstance(want, bool):
        return isinstance(got, bool) and got == want
    if isinstance(want, (int, float)):
        return isinstance(got, (int, float)) and not isinstance(got, bool) and float(got) == float(want)
    return isinstance(got, str) and got == want


def check_xlsx(book_path, data_path):
    import openpyxl

    with open(data_path, encoding="utf-8") as f:
        items = json.load(f)
    if not isinstance(items, list):
        items = [items]
    names, rows = expected_grid(items)
    book = openpyxl.load_workbook(book_path)
    if book.sheetnames != ["Data"]:
        return f"sheets {book.sheetnames}, expected ['Data']"
    sheet = book["Data"]
    got = [list(r) for r in sheet.iter_rows(values_only=True)]
    if not names:
        if any(any(v is not None for v in r) for r in got):
            return f"expected an empty sheet, got {got}"
        return "ok: no items, an empty sheet"
    width = len(names)
    if sheet.max_column != width:
        return f"{sheet.max_column} columns, expected {width}"
    if len(got) != len(rows) + 1:
        return f"{len(got)} rows, expected {len(rows) + 1} (a header and one per item)"
    if list(got[0]) != names:
        return f"header {got[0]}, expected {names}"
    if not sheet.cell(row=1, column=1).font.b:
        return "the header row is not bold"
    if sheet.freeze_panes != "A2":
        return f"frozen at {sheet.freeze_panes}, expected A2"
    cells = 0
    for r, (got_row, want_row) in enumerate(zip(got[1:], rows), start=2):
        got_row = list(got_row) + [None] * (width - len(got_row))
        for c, (g, w) in enumerate(zip(got_row, want_row), start=1):
            cells += 1
            if not same(g, w):
                return f"cell {sheet.cell(row=r, column=c).coordinate}: {g!r} ({type(g).__name__}), expected {w!r}"
    return f"ok: {cells} cells of {len(rows)} items in {width} columns equal the JSON"


def check_feed(feed_path, expected_path):
    import feedparser

    with open(expected_path, encoding="utf-8") as f:
        expected = json.load(f)
    with open(feed_path, "rb") as f:
        parsed = feedparser.parse(f.read())
    if parsed.bozo:
        return f"not well-formed: {parsed.bozo_exception!r}"
    if parsed.version != expected["version"]:
        return f"version {parsed.version!r}, expected {expected['version']!r}"
    if parsed.feed.get("title") != expected["title"]:
        return f"title {parsed.feed.get('title')!r}, expected {expected['title']!r}"
    got = [{"title": e.get("title"), "link": e.get("link"), "id": e.get("id")} for e in parsed.entries]
    wanted = [{k: e[k] for k in ("title", "link", "id")} for e in expected["entries"]]
    if got != wanted:
        return f"entries {json.dumps(got, indent=1)}\nexpected {json.dumps(expected['entries'], indent=1)}"
    for entry, want in zip(parsed.entries, expected["entries"]):
        content = entry["content"][0]["value"] if entry.get("content") else entry.get("summary", "")
        if not content:
            return f"entry {entry.get('id')} has no content"
        for part in want.get("content_has", []):
            if part not in content:
                return f"entry {entry.get('id')}: {part!r} not in its content:\n{content}"
        if entry.get("published_parsed") is None and entry.get("updated_parsed") is None:
            return f"entry {entry.get('id')} has no date"
    return f"ok: {parsed.version}, {len(got)} entries"


def main():
    kind, a, b = sys.argv[1:4]
    result = check_xlsx(a, b) if kind == "xlsx" else check_feed(a, b)
    print(result)
    sys.exit(0 if result and result.startswith("ok") else 1)


if __name__ == "__main__":
    main()
