#!/usr/bin/env bash
# Builds the svc book (docs/book.toml, chapters in docs/) into docs/book/ and
# checks its links. Quiet on success but for one summary line; exits non-zero
# with the list of problems on failure.
#
# 1. mdBook: installed with cargo when missing (or not a 0.5 release), pinned.
# 2. `mdbook build docs`: any warning or error fails the script.
# 3. Link check, offline (external URLs are never fetched):
#    - in the built HTML of every chapter, each relative link must reach a file
#      of the book and each #fragment an id of the page it points to (the ids
#      mdBook wrote, so heading anchors are checked exactly);
#    - in README.md and ARCHITECTURE.md (not rendered by the book), each
#      relative link must reach a file of the repository, and a #fragment into
#      a Markdown file one of its headings (GitHub's anchor rules);
#    - every docs/*.md is a chapter of docs/SUMMARY.md.
#
# Usage: book.sh [--install-only]
set -euo pipefail
cd "$(dirname "$0")/.."

MDBOOK_VERSION=0.5.4

MDBOOK=mdbook
if ! command -v mdbook >/dev/null 2>&1 || ! mdbook --version 2>/dev/null | grep -q ' v0\.5\.'; then
    echo "book: installing mdbook $MDBOOK_VERSION with cargo (once; a few minutes)" >&2
    log=$(mktemp)
    # Only the `search` feature: `serve` and `watch` (a web server, a file
    # watcher) are for writing the book, not for building it.
    if ! nice -n 19 cargo install mdbook --version "$MDBOOK_VERSION" --locked \
        --no-default-features --features search >"$log" 2>&1; then
        cat "$log" >&2
        echo "book: cargo install mdbook $MDBOOK_VERSION failed" >&2
        exit 1
    fi
    rm -f "$log"
    MDBOOK="${CARGO_HOME:-$HOME/.cargo}/bin/mdbook"
fi
# `--install-only`: stop here (scripts/test.sh installs it early, in the
# background, and builds the book later).
[ "${1:-}" = --install-only ] && exit 0

build_log=$(mktemp)
trap 'rm -f "$build_log"' EXIT
if ! "$MDBOOK" build docs >"$build_log" 2>&1; then
    cat "$build_log" >&2
    echo "book: mdbook build failed" >&2
    exit 1
fi
if grep -E '(^|[[:space:]])(WARN|ERROR)[[:space:]]' "$build_log" >&2; then
    echo "book: mdbook build warned (above)" >&2
    exit 1
fi

python3 - <<'PY'
import html.parser
import os
import re
import sys
import urllib.parse

BOOK = "docs/book"
problems = []


class Page(html.parser.HTMLParser):
    """The ids of an HTML page, and the links inside its <main>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.links, self.depth = set(), [], 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        if tag == "main":
            self.depth += 1
        elif tag == "a" and self.depth and a.get("href") is not None:
            self.links.append(a["href"])

    def handle_endtag(self, tag):
        if tag == "main" and self.depth:
            self.depth -= 1


def external(href):
    return bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", href)) or href.startswith("//")


# --- the built book -------------------------------------------------------
pages = {}
for root, _, files in os.walk(BOOK):
    for f in files:
        if f.endswith(".html"):
            path = os.path.join(root, f)
            page = Page()
            with open(path, encoding="utf-8") as fh:
                page.feed(fh.read())
            pages[os.path.normpath(path)] = page

# print.html repeats every chapter with its links rewritten; 404.html and
# toc.html are mdBook's own.
skip = {os.path.join(BOOK, n) for n in ("print.html", "404.html", "toc.html")}
book_links = 0
for path, page in sorted(pages.items()):
    if path in skip:
        continue
    for href in page.links:
        if external(href):
            continue
        book_links += 1
        target, _, fragment = href.partition("#")
        target = urllib.parse.unquote(target.split("?")[0])
        dest = os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
        where = os.path.relpath(path, BOOK)
        if not dest.startswith(BOOK + os.sep):
            problems.append(f"{where}: link {href!r} leaves the book")
        elif not os.path.exists(dest):
            problems.append(f"{where}: link {href!r}: no such file in the book")
        elif fragment and dest in pages and urllib.parse.unquote(fragment) not in pages[dest].ids:
            problems.append(f"{where}: link {href!r}: no anchor #{fragment} in {os.path.relpath(dest, BOOK)}")

# --- every chapter file is in the summary ---------------------------------
with open("docs/SUMMARY.md", encoding="utf-8") as fh:
    listed = set(re.findall(r"\]\(([^)#]+\.md)\)", fh.read()))
for f in sorted(os.listdir("docs")):
    if f.endswith(".md") and f != "SUMMARY.md" and f not in listed:
        problems.append(f"docs/{f}: not a chapter of docs/SUMMARY.md")


# --- README.md and ARCHITECTURE.md ----------------------------------------
def markdown_text(path):
    """The file's lines outside fenced code blocks."""
    out, fence = [], None
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r"^\s*(```+|~~~+)", line)
            if m:
                if fence is None:
                    fence = m.group(1)
                elif m.group(1).startswith(fence):
                    fence = None
                continue
            if fence is None:
                out.append(line)
    return out


def github_anchors(path):
    anchors, seen = set(), {}
    for line in markdown_text(path):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


md_links = 0
for source in ("README.md", "ARCHITECTURE.md"):
    for number, line in enumerate(markdown_text(source), 1):
        line = re.sub(r"`[^`]*`", "", line)  # code spans are not links
        targets = re.findall(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", line)
        targets += re.findall(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", line)
        for href in targets:
            if external(href):
                continue
            md_links += 1
            target, _, fragment = href.partition("#")
            target = urllib.parse.unquote(target)
            dest = os.path.normpath(os.path.join(os.path.dirname(source), target)) if target else source
            if not os.path.exists(dest):
                problems.append(f"{source}: link {href!r}: no such file")
            elif fragment and dest.endswith(".md") and fragment not in github_anchors(dest):
                problems.append(f"{source}: link {href!r}: no heading #{fragment} in {dest}")

if problems:
    print("\n".join(problems), file=sys.stderr)
    print(f"book: {len(problems)} broken link(s) or missing chapter(s)", file=sys.stderr)
    sys.exit(1)
chapters = len([p for p in pages if p not in skip and not p.endswith("index.html")])
print(f"book: built docs/book ({chapters} pages); {book_links} links in the book and "
      f"{md_links} in README.md and ARCHITECTURE.md checked, none broken")
PY
