"""`python -m weighttying report [--json]`: every table, ours beside the page's."""
import argparse
import sys

from . import report


def main(argv=None) -> int:
    """Print the report as text, or as JSON with --json."""
    parser = argparse.ArgumentParser(prog="python -m weighttying")
    parser.add_argument("command", choices=["report"])
    parser.add_argument("--json", action="store_true", help="write the report as JSON instead of tables")
    args = parser.parse_args(argv)
    tables = report.build()
    sys.stdout.write(report.to_json(tables) + "\n" if args.json else report.to_text(tables))
    return 0


if __name__ == "__main__":
    sys.exit(main())
