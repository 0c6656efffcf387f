#!/usr/bin/env python3
"""How much of each skeleton repeats its solution: the measure behind "given code once".

For every kernel file that has both a skeleton (labs/LAB/kernels/F) and a solution
(solutions/LAB/kernels/F), the skeleton's non-blank lines (trailing white space taken
off, indentation kept) are matched against the solution's with difflib's
SequenceMatcher (autojunk off, so that common lines such as "}" are not dropped as
junk). The lines that lie in its matching blocks (the longest common runs, found
recursively on either side of each) are the lines the two files repeat. The script
prints, file by file, the skeleton's lines, the matched ones and the longest matched
run, then the totals. Given code that both trees include from labs/LAB/given/ is one
file, not a pair, and counts nothing.

This is the count of issue 32 ("Of the skeletons' 4,085 non-blank lines, 2,845 match
their solutions"): kernels/ only. --cpu adds lab 05's cpu/ pairs, which the issue
left out. It is a measure, not a check: grader/tests/edition/given_overlap.cpp is the
check (a shared run of 20 or more code lines fails the edition test).

    scripts/given_overlap.py [--root DIR] [--cpu] [--quiet]
"""
import argparse
import difflib
import pathlib
import sys


def non_blank_lines(path):
    return [line.rstrip() for line in path.read_text().splitlines() if line.strip()]


def pairs(root, folders):
    for solution in sorted((root / "solutions").glob("*/*/*")):
        relative = solution.relative_to(root / "solutions")
        if relative.parts[1] not in folders or not solution.is_file():
            continue
        skeleton = root / "labs" / relative
        if skeleton.is_file():
            yield relative, skeleton, solution


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path,
                        help="the course checkout (default: this script's)")
    parser.add_argument("--cpu", action="store_true", help="count labs/*/cpu pairs too")
    parser.add_argument("--quiet", action="store_true", help="print the totals only")
    args = parser.parse_args()
    folders = {"kernels", "cpu"} if args.cpu else {"kernels"}
    if not (args.root / "solutions").is_dir():
        sys.exit(f"given_overlap: {args.root}/solutions is not a folder; give the course checkout with --root")

    total_lines = total_matched = 0
    for relative, skeleton, solution in pairs(args.root, folders):
        a, b = non_blank_lines(skeleton), non_blank_lines(solution)
        blocks = difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
        matched = sum(block.size for block in blocks)
        longest = max((block.size for block in blocks), default=0)
        total_lines += len(a)
        total_matched += matched
        if not args.quiet:
            print(f"{str(relative):55} {len(a):5} lines {matched:5} matched ({100 * matched / max(len(a), 1):3.0f}%)"
                  f"  longest run {longest}")
    print(f"total: {total_matched} of the skeletons' {total_lines} non-blank lines match their solutions")


if __name__ == "__main__":
    main()
