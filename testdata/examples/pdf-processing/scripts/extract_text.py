#!/usr/bin/env python3
"""Print the text of each page of a PDF, or its form fields with --fields."""
import sys

from pypdf import PdfReader


def main(argv):
    fields = "--fields" in argv
    paths = [a for a in argv if a != "--fields"]
    if len(paths) != 1:
        print("usage: extract_text.py [--fields] FILE.pdf", file=sys.stderr)
        return 2
    reader = PdfReader(paths[0])
    if fields:
        for name, field in (reader.get_fields() or {}).items():
            print(f"{name}\t{field.get('/FT', '')}\t{field.get('/V', '')}")
        return 0
    for number, page in enumerate(reader.pages, start=1):
        print(f"--- page {number} ---")
        print(page.extract_text() or "")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
