#!/usr/bin/env python3
"""Merges the result lines of run.sh's runs into one table per run, in the shape of undici's
printResults (slowest first), and, for more than one run, a table of req/s per run.

    merge.py RESULTS_DIR RUNS

RESULTS_DIR holds undici-N.jsonl (written by tap.cjs from undici's benchmark.js) and
ours-N.jsonl (the JSON lines of `cargo bench --bench undici`) for runs N = 1..RUNS.
"""

import json
import os
import sys


def load(path):
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def table(headers, rows):
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]
    rule = "+".join("-" * (w + 2) for w in widths)
    out = ["| " + " | ".join(str(h).ljust(w) for h, w in zip(headers, widths)) + " |",
           "|" + rule + "|"]
    for row in rows:
        out.append("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |")
    return "\n".join(out)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    directory, runs = sys.argv[1], int(sys.argv[2])
    per_run = []
    for run in range(1, runs + 1):
        rows = load(os.path.join(directory, f"undici-{run}.jsonl"))
        rows += load(os.path.join(directory, f"ours-{run}.jsonl"))
        per_run.append(rows)
        ok = sorted((r for r in rows if r.get("rps")), key=lambda r: r["rps"])
        failed = [r for r in rows if not r.get("rps")]
        slowest = ok[0]["rps"] if ok else None
        printed = [[r["client"], r.get("samples", "?"), "Errored", "N/A", "N/A"] for r in failed]
        for r in ok:
            diff = (r["rps"] / slowest - 1) * 100
            printed.append([
                r["client"],
                r.get("samples", "?"),
                f"{r['rps']:.2f} req/sec",
                f"± {r['tolerance_pct']:.2f} %" if r.get("tolerance_pct") is not None else "N/A",
                f"+ {diff:.2f} %" if diff > 0 else "-",
            ])
        print(f"run {run} of {runs}: undici's benchmark.js and cargo bench --bench undici, "
              "slowest first")
        print(table(["Tests", "Samples", "Result", "Tolerance", "Difference with slowest"],
                    printed))
        print()
    if runs > 1:
        names = []
        for rows in per_run:
            for r in rows:
                if r["client"] not in names:
                    names.append(r["client"])
        rps = [{r["client"]: r.get("rps") for r in rows} for rows in per_run]

        def best(name):
            values = [run.get(name) or 0 for run in rps]
            return sum(values) / len(values)

        printed = []
        for name in sorted(names, key=best):
            printed.append([name] + [
                f"{run[name]:.0f}" if run.get(name) else "-" for run in rps
            ])
        print("req/s by run, slowest first (by the mean of the runs)")
        print(table(["Tests"] + [f"run {n}" for n in range(1, runs + 1)], printed))


if __name__ == "__main__":
    main()
