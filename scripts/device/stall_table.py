#!/usr/bin/env python3
"""Where a kernel's warps wait, from ncu's source page (--page source --csv --print-source sass).

    python3 scripts/device/stall_table.py NAME.source.csv > NAME.stalls.txt

Prints the warp-state samples by reason (each reason's share of all samples), the SASS
instructions with the most samples and their two main reasons, and the shared-memory wavefronts
beyond the ideal (bank conflicts) over the ideal count.
"""
import collections
import csv
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def main(path, top=25):
    rows = list(csv.reader(open(path)))
    header = next(r for r in rows if "Address" in r and "Source" in r)
    column = {name: i for i, name in enumerate(header)}
    instructions = [r for r in rows[rows.index(header) + 1:] if len(r) == len(header)]
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    totals = collections.Counter()
    for r in instructions:
        for reason in reasons:
            totals[reason] += number(r[column[reason]])
    all_samples = sum(totals.values()) or 1.0
    print(f"{path}: warp-state samples by reason (share of all samples)")
    for reason, samples in totals.most_common(10):
        print(f"  {reason:28s} {100 * samples / all_samples:5.1f}%")
    samples_of = lambda r: number(r[column["Warp Stall Sampling (All Samples)"]])
    print(f"the {top} instructions with the most samples (address, samples, main reasons, SASS):")
    for r in sorted(instructions, key=samples_of, reverse=True)[:top]:
        main_reasons = sorted(((number(r[column[h]]), h[len("stall_"):]) for h in reasons), reverse=True)[:2]
        named = ",".join(f"{h}:{v:.0f}" for v, h in main_reasons)
        print(f"  {r[column['Address']]:>8} {samples_of(r):7.0f} {named:34s} {r[column['Source']][:70]}")
    excessive = sum(number(r[column["L1 Wavefronts Shared Excessive"]]) for r in instructions)
    ideal = sum(number(r[column["L1 Wavefronts Shared Ideal"]]) for r in instructions)
    print(f"shared-memory wavefronts beyond the ideal / ideal: {excessive:.3g} / {ideal:.3g}")


if __name__ == "__main__":
    main(sys.argv[1])
