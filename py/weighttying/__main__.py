"""`python -m weighttying report [--json]`: every table, ours beside the page's.
`python -m weighttying calibrate`: the search over the page's free choices, one line per candidate."""
import argparse
import sys


def calibrate(seeds: int) -> None:
    """Print every candidate's distances as it is scored, then the winner and the recipe in use."""
    from . import calibrate as C

    scores = []
    for s in C.iter_search(seeds=range(seeds)):
        scores.append(s)
        print(C.line(s), flush=True)
    win = C.best(scores)
    print(f"\nwinner: {C.line(win)}")
    for v in win["verdicts"].values():
        print(f"  {v['id']}: ours {v['ours']:.4g} page {v.get('page', float('nan')):.4g}  {v['verdict']}")
    now = C.current()
    print(f"in use: {now}" + ("" if now == win["candidate"] else "  (differs from the winner)"))


def main(argv=None) -> int:
    """Print the report as text, or as JSON with --json; or run the calibration search."""
    parser = argparse.ArgumentParser(prog="python -m weighttying")
    parser.add_argument("command", choices=["report", "calibrate"])
    parser.add_argument("--json", action="store_true", help="write the report as JSON instead of tables")
    parser.add_argument("--seeds", type=int, default=5, help="calibrate: seeds per candidate (default 5)")
    args = parser.parse_args(argv)
    if args.command == "calibrate":
        calibrate(args.seeds)
        return 0
    from . import report

    tables = report.build()
    sys.stdout.write(report.to_json(tables) + "\n" if args.json else report.to_text(tables))
    return 0


if __name__ == "__main__":
    sys.exit(main())
