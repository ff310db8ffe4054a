"""`python -m weighttying report [--json]`: every table, ours beside the page's.
`python -m weighttying calibrate [--only pathdrop repeat tasks]`: the search over the page's free choices, one
experiment at a time, one line per candidate."""
import argparse
import ctypes
import sys

from .measure import TRAINED

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)


def keep_freed_memory() -> None:
    """Under glibc, keep freed memory in the process for reuse instead of handing it back to the OS.

    A training stack's temporaries are arrays of about 1 MB (25 runs x 64 x 64 doubles); glibc's dynamic
    thresholds return the top of the heap after each step, so the next step's arrays page-fault in anew,
    which took about half of the report's time (bench/README.md, "Run sections"). Other C libraries: unchanged.
    """
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_TRIM_THRESHOLD, 1 << 30)
    mallopt(M_MMAP_THRESHOLD, 1 << 25)  # glibc's largest: arrays up to 32 MB come from the heap and stay



def run_calibration(seeds: int, experiments) -> None:
    """Per experiment: print every candidate's distances as it is scored, then the winner and the recipe in use."""
    from . import calibrate

    for name in experiments:
        scores = []
        for s in calibrate.iter_search(name, seeds=range(seeds)):
            scores.append(s)
            print(calibrate.line(s), flush=True)
        win = calibrate.best(scores)
        print(f"\nwinner of {len(scores)}: {calibrate.line(win)}")
        for v in win["verdicts"].values():
            print(f"  {v['id']}: ours {v['ours']:.4g} page {v.get('page', float('nan')):.4g}  {v['verdict']}")
        now = calibrate.current(name)
        print(f"in use: {now}" + ("" if now == win["candidate"] else "  (differs from the winner)") + "\n", flush=True)


def main(argv=None) -> int:
    """Print the report as text, or as JSON with --json; or run the calibration search."""
    parser = argparse.ArgumentParser(prog="python -m weighttying")
    parser.add_argument("command", choices=["report", "calibrate"])
    parser.add_argument("--json", action="store_true", help="write the report as JSON instead of tables")
    parser.add_argument("--seeds", type=int, default=5, help="calibrate: seeds per candidate (default 5)")
    parser.add_argument("--only", nargs="+", choices=list(TRAINED), default=list(TRAINED),
                        help="calibrate: the experiments to search (default: all, one after the other)")
    args = parser.parse_args(argv)
    keep_freed_memory()
    if args.command == "calibrate":
        run_calibration(args.seeds, args.only)
        return 0
    from . import report

    tables = report.build()
    sys.stdout.write(report.to_json(tables) + "\n" if args.json else report.to_text(tables))
    return 0


if __name__ == "__main__":
    sys.exit(main())
