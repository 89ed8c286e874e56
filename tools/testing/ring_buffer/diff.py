#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
The differential check: rbtest --diff SEED:RUNS:STEPS (t_diff.c) built
from our ring_buffer.c and from stock 6.12's (STOCK=1), the same seeds on
both; their traces of everything a caller observes must agree.

    diff.py OURS_RBTEST STOCK_RBTEST [--seed S] [--runs N] [--steps K] [--batch B]
            [--timeout T]

KTAP: one result per batch of B runs; a batch fails at the first line
where a run's traces differ (printed with the step it belongs to), or
when either program fails or takes more than T seconds on one run.  The
seed base is printed (a new one every time unless --seed is given): a
failure reproduces with --seed S --runs 1 on the run it names, or with
rbtest --diff S:1:K on each build.

Normalisation, the one place where the two traces may differ, applies to
stock's trace only (ours is judged exactly): NORMALISE below, each entry
with why.  What the format leaves to each implementation is not printed
as such by t_diff.c but as the facts both must agree on (read_page as a
stream of events and losses, a fill by what came back in order and where
the loss was reported, bytes_cpu only whether it is zero); its other
limits (no CPU more than a third full outside a fill, a CPU emptied before
it shrinks or changes order, event lengths within the allocation's limit)
are at their places in t_diff.c.  Anything else is a difference.
"""
import argparse
import os
import random
import re
import subprocess
import sys

# (pattern, replacement, why) applied to every line of both traces
NORMALISE = [
    # Stock's empty_cpu() and empty() say "not empty" while a discarded
    # event still sits in the ring as padding, with no entry left.
    (r'(entries 0 overrun \d+ commit_overrun \d+ dropped \d+ read \d+) empty 0', r'\1 empty 1',
     'stock: empty_cpu() 0 with only padding left'),
    (r'^(  entries 0 overruns \d+) empty 0$', r'\1 empty 1',
     'stock: empty() 0 with only padding left'),
    # Stock's read_page() can hand back a sub-buffer with no event while
    # one waits on the next (after a consume emptied a sub-buffer that a
    # large event had filled): the event comes with the next call.
    (r' empty-page', '',
     'stock: read_page() hands over an empty sub-buffer while an event waits'),
    # With no event left but the padding of a discarded one, stock's
    # read_page() hands over that sub-buffer, with no event on it, where
    # an empty CPU refuses (-1).
    (r'^((?:step \d+: )?read_page cpu\d:.*) then 0 events$', r'\1 then refused',
     'stock: read_page() hands over a sub-buffer of padding only when no event is left'),
    # An event discarded after an interrupt wrote one behind it stays in
    # the ring as padding that keeps its time delta; stock's readers
    # (consume, peek, iterator) and the pages' format skip a padding's
    # delta, so the events written behind it read with a stamp early by
    # that much.  t_diff.c finds such an event by its payload and prints
    # it as #SEQ(stamp-D).
    (r'#(\d+)\(stamp-\d+\)', r'#\1',
     'stock: an event behind a discarded interrupted event reads with an early stamp'),
    # Stock's iter_empty() compares positions: an iterator at the end of
    # a sub-buffer whose last event was discarded (padding to its end)
    # while the writer has moved to the next, empty one, is "not empty"
    # though the iterator has no event left to give.  Only where its peek
    # then finds nothing (the end of the line).
    (r'^((?:step \d+: )?iterate .*?)(?<! \(empty\)) end$', r'\1 (empty) end',
     'stock: iter_empty() 0 at the end with padding before the writer'),
]


def trace(prog, seed, runs, steps, timeout):
    """One program's trace of runs from seed: (exit status, text).

    Each run has timeout seconds (rbtest stops with 124 and says which run
    when one takes longer); the batch as a whole, as a backstop, as many
    times that and a minute more."""
    env = dict(os.environ, ASAN_OPTIONS='detect_leaks=0:abort_on_error=1',
               RB_DIFF_RUN_SECS=str(timeout))
    try:
        r = subprocess.run([prog, '--diff', '%d:%d:%d' % (seed, runs, steps)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                           errors='replace', timeout=runs * timeout + 60)
    except subprocess.TimeoutExpired as e:
        out = e.stdout or ''
        if isinstance(out, bytes):
            out = out.decode(errors='replace')
        return 124, out + '\n(batch timed out)'
    return r.returncode, r.stdout


def runs_of(text, normalise):
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r'^run (\d+):', line)
        if m:
            cur = int(m.group(1))
            out[cur] = []
        if cur is not None:
            for pat, rep, _ in (NORMALISE if normalise else []):
                line = re.sub(pat, rep, line)
            out[cur].append(line)
    return out


def first_diff(a, b):
    step = ''
    for i in range(max(len(a), len(b))):
        la = a[i] if i < len(a) else '<end>'
        lb = b[i] if i < len(b) else '<end>'
        if la.startswith('step '):
            step = la
        if la != lb:
            return i, step, la, lb
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('ours')
    ap.add_argument('stock')
    ap.add_argument('--seed', type=int, default=None)
    ap.add_argument('--runs', type=int, default=200)
    ap.add_argument('--steps', type=int, default=300)
    ap.add_argument('--batch', type=int, default=25)
    ap.add_argument('--timeout', type=int, default=60,
                    help='seconds one run of one program may take')
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1, 1 << 40)
    nb = (a.runs + a.batch - 1) // a.batch
    print('KTAP version 1')
    print('# differential against stock 6.12: %d runs of %d steps from seed %d' %
          (a.runs, a.steps, seed))
    print('1..%d' % nb)
    failed = ops = 0
    for k in range(nb):
        s0 = seed + k * a.batch
        n = min(a.batch, a.runs - k * a.batch)
        name = 'diff_seeds_%d_to_%d' % (s0, s0 + n - 1)
        rc1, t1 = trace(a.ours, s0, n, a.steps, a.timeout)
        rc2, t2 = trace(a.stock, s0, n, a.steps, a.timeout)
        ops += t1.count('\nstep ')
        why = None
        if rc1 or rc2:
            why = 'exit status: ours %d, stock %d' % (rc1, rc2)
            for line in (t1.splitlines()[-3:] if rc1 else []) + \
                    (t2.splitlines()[-3:] if rc2 else []):
                print('# %s' % line)
        else:
            r1, r2 = runs_of(t1, False), runs_of(t2, True)
            for s in range(s0, s0 + n):
                d = first_diff(r1.get(s, []), r2.get(s, []))
                if d:
                    i, step, la, lb = d
                    why = 'run %d differs at line %d (%s)' % (s, i, step)
                    print('# ours:  %s' % la)
                    print('# stock: %s' % lb)
                    break
        if why:
            failed += 1
            print('not ok %d %s # %s' % (k + 1, name, why))
        else:
            print('ok %d %s' % (k + 1, name))
        sys.stdout.flush()
    print('# %d steps compared' % ops)
    print('%d passed, %d failed' % (nb - failed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
