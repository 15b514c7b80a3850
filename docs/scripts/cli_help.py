"""The ``--help`` text of ``nanstats`` and of each of its commands, for the docs.

Taken from the argument parser itself (:func:`nanstats.cli.parser`), so the
page "Command line" always shows the options the installed version has.
Writes ``docs/_generated/cli_help.txt``; run by ``docs/conf.py``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "_generated" / "cli_help.txt"


def main() -> None:
    os.environ["COLUMNS"] = "88"  # argparse wraps to the terminal width
    from nanstats.cli import parser

    top = parser()
    texts = ["$ nanstats --help", top.format_help()]
    for action in top._actions:  # argparse keeps sub-commands in a private action
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                texts += [f"$ nanstats {name} --help", sub.format_help()]
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(texts))


if __name__ == "__main__":
    main()
