#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the output of `rbtest --matrix` into the Markdown tables of TESTS.md.

One grid per context (irq, NMI, CPU 1): a row per operation A (stepped),
a column per operation B; a cell is the points run and the result
(ok, FAIL, KNOWN, "-" impossible, "nr" not run for the budget).  Then the
reasons of the impossible pairs, the failures, and the totals.

    matrix_table.py LOG [LOG_STOCK]
"""
import re
import sys

CTX = ["irq on CPU 0", "NMI on CPU 0", "CPU 1"]
# the order of t_matrix.c's mx_ops[]
OPS = ["write_fast", "write_move", "write_push", "discard", "consume", "peek",
       "read_page", "iterator", "map", "unmap", "get_reader", "resize_cpu",
       "resize_all", "subbuf_order", "reset_cpu", "swap_cpu", "record_off_on",
       "cpu_online", "cpu_offline", "nmi_dump"]
ROW = re.compile(r"^# (\S+)\s+(\S+)\s+(irq on CPU 0|NMI on CPU 0|CPU 1)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.*)$")


def parse(path):
    rows, ops, summary, seed, last = {}, [], "", "", ""
    for line in open(path, errors="replace"):
        m = ROW.match(line.rstrip("\n"))
        if line.startswith(("# oracle", "SUMMARY: AddressSanitizer")) or "hangs (20 s)" in line:
            last = line.strip().lstrip("# ")
            continue
        if m:
            a, b, ctx, seen, run, masked, waited, secs, res = m.groups()
            if a == "A":
                continue
            if res.startswith(("FAIL", "KNOWN")) and last:
                res += " -- " + last
            last = ""
            for o in (a, b):
                if o not in ops:
                    ops.append(o)
            rows[(a, b, ctx)] = (seen, run, masked, waited, secs, res)
        elif line.startswith("# matrix:"):
            if "pairs run" in line:
                summary = line[2:].strip()
            else:
                seed = line[2:].strip()
    return rows, ops, summary, seed


def cell(r):
    if r is None:
        return ""
    seen, run, masked, waited, secs, res = r
    if res.startswith("impossible"):
        return "-"
    if res.startswith("not run"):
        return "nr"
    word = res.split()[0]
    mark = {"ok": "ok", "FAIL": "**FAIL**", "KNOWN": "known", "setup": "setup?"}.get(word, word)
    return "%s/%s %s" % (run, seen, mark)


def grids(rows, ops, title):
    out = []
    for ctx in CTX:
        out.append("%s, B %s (cell: points run / points of A, result):\n" % (title, ctx))
        out.append("| A \\ B | " + " | ".join(ops) + " |")
        out.append("| --- " * (len(ops) + 1) + "|")
        for a in ops:
            out.append("| %s | " % a + " | ".join(cell(rows.get((a, b, ctx))) for b in ops) + " |")
        out.append("")
    return out


def main():
    rows, ops, summary, seed = parse(sys.argv[1])
    ops = [o for o in OPS if o in ops] + [o for o in ops if o not in OPS]
    out = ["Run: `%s`; %s.\n" % (seed, summary)]
    out += grids(rows, ops, "Ours")
    why = {}
    for (a, b, ctx), r in rows.items():
        if r[5].startswith("impossible: "):
            why.setdefault(r[5][len("impossible: "):], set()).add("%s in %s" % (b if not r[5].startswith("impossible: an NMI is not") else "A=" + a, ctx))
    out.append("Impossible pairs and why:\n")
    for w, s in sorted(why.items()):
        out.append("- %s: %s" % (w, ", ".join(sorted(s))))
    out.append("")
    bad = [(k, r) for k, r in rows.items() if r[5].startswith(("FAIL", "KNOWN"))]
    if bad:
        out.append("Failures of ours:\n")
        for (a, b, ctx), r in sorted(bad):
            out.append("- %s / %s / %s: %s" % (a, b, ctx, r[5]))
        out.append("")
    if len(sys.argv) > 2:
        srows, sops, ssummary, sseed = parse(sys.argv[2])
        out.append("Stock 6.12 (`STOCK=1`), run: `%s`; %s.\n" % (sseed, ssummary))
        sbad = [(k, r) for k, r in srows.items() if r[5].startswith(("FAIL", "KNOWN"))]
        for (a, b, ctx), r in sorted(sbad):
            out.append("- %s / %s / %s: %s" % (a, b, ctx, r[5]))
        out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
