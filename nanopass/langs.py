"""`python -m nanopass.langs show L` prints a language's grammar; `diff A B` prints what B adds
and removes relative to A. Languages come from the installed compiler plugin."""

from __future__ import annotations

import argparse
import sys

from nanopass.cli import run_main
from nanopass.langdef import diff_languages, format_diff, format_language
from nanopass.plugin import get_plugin


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nanopass.langs", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show", help="print a language declaration")
    show.add_argument("language")
    diff = sub.add_parser("diff", help="print what B adds and removes relative to A")
    diff.add_argument("a")
    diff.add_argument("b")
    sub.add_parser("list", help="list the languages in order")
    args = parser.parse_args(argv)
    family = get_plugin().family
    try:
        if args.command == "show":
            print(format_language(family.by_name(args.language)))
        elif args.command == "diff":
            print(format_diff(diff_languages(family.by_name(args.a), family.by_name(args.b))))
        else:
            for lang in family.languages:
                print(f"{lang.name:<13} {lang.doc}")
    except KeyError as err:
        print(f"error: {err.args[0]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    run_main(main)
