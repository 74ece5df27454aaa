#!/usr/bin/env python3
"""Learning curves from `shax compare --json`: each run's score against one
opponent by CPU hours (or wall-clock hours with --clock wall), with the 95%
interval of every evaluation. Needs matplotlib.

    shax compare runs/a runs/b --json | scripts/plot-compare.py --opponent alphabeta:depth=4 -o curves.png
"""
import argparse
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def score_of(elo):
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--opponent", required=True, help="an opponent spec, or its start (alphabeta:depth=4)")
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    ap.add_argument("--title", default=None)
    ap.add_argument("-o", "--out", default="curves.png")
    a = ap.parse_args()
    runs = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        e = json.loads(line)
        for r in e["results"]:
            if r["opponent"].startswith(a.opponent) and not r["vs_best"]:
                x = e["cpu_hours"] if a.clock == "cpu" else e["hours"]
                runs.setdefault(e["run"], []).append((x, r["score"], score_of(r["elo_low"]), score_of(r["elo_high"])))
    if not runs:
        sys.exit(f"no evaluation against '{a.opponent}' in the input")
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for name, pts in sorted(runs.items()):
        pts.sort()
        xs = [p[0] for p in pts]
        ys = [100 * p[1] for p in pts]
        err = [[100 * (p[1] - p[2]) for p in pts], [100 * (p[3] - p[1]) for p in pts]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=name)
    ax.set_xlabel("CPU hours of the trainer" if a.clock == "cpu" else "hours")
    ax.set_ylabel(f"score against {a.opponent} (%)")
    top = max(100 * p[3] for pts in runs.values() for p in pts)
    ax.set_ylim(0, min(100, 10 * math.ceil((top + 5) / 10)))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if a.title:
        ax.set_title(a.title)
    fig.tight_layout()
    fig.savefig(a.out)
    print(f"wrote {a.out}: {len(runs)} runs")


if __name__ == "__main__":
    main()
