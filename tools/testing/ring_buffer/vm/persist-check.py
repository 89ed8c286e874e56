#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""persist-check.py: the host's side of persist.sh (two-boot checks of the
persistent "range" buffer).

  persist-check.py save RAM OFF LEN OUT       copy LEN bytes at OFF of the
                                              guest RAM file to OUT
  persist-check.py restore RAM OFF IN         write IN back at OFF
  persist-check.py corrupt RAM OFF LEN        LEN random bytes at OFF
  persist-check.py corrupt-page RAM OFF LEN STRING
                                              the first page (4096 bytes,
                                              aligned) of [OFF, OFF+LEN) that
                                              holds STRING, overwritten with
                                              random bytes; prints its offset
                                              from OFF
  persist-check.py zero-in-page RAM OFF LEN STRING AT N
                                              in the first page of [OFF,
                                              OFF+LEN) that holds STRING, N
                                              zero bytes at AT; prints the
                                              page's offset from OFF
  persist-check.py judge CASE --run ID --boot2 DIR [--boot1 DIR] [--retried]
                                              one verdict: "ok|not ok<TAB>diag"
                                              on stdout, exit status 0 or 1

A boot's DIR holds console.log (the kernel's console), guest.ktap (what
guest/persist.sh printed: sections "=== NAME") and rc (QEMU's exit status).
CASE is one of:
  keep          boot 2 shows boot 1's markers exactly, per CPU in order, with
                non-decreasing time stamps, CPU 0's stalled at marker STEP's
                after it (boot 1 set the clock back there), the sched_switch event,
                "Ring buffer meta [N] is from previous boot!" for every CPU
                that had markers, last_boot_info's two deltas (0 and 0: both
                boots are nokaslr), buffer_meta in 6.12's format, and it
                records again after a reset
  zeroed        a boot on zeroed RAM (persist.sh: the pair's boot 1, on a
                fresh file, before it writes): no entry, no "from previous
                boot", and it records
  corrupt_meta, corrupt_data
                CPU 0's range was corrupted between the boots: no "from
                previous boot" for CPU 0 but a "Ring buffer ... meta ... [0]"
                line (stock: "Ring buffer boot meta[0] mismatch ..." or
                "... [0] buffer invalid commit"; ours: "Ring buffer meta [0]
                <reason>: starting empty"), none of CPU 0's markers, whatever
                is left of the last CPU's markers in order, and it records
  salvage       CPU 0's range lost a run of bytes in the middle of one
                sub-buffer's events between the boots (ours): CPU 0 "is from
                previous boot!", one line "Ring buffer meta [0] sub-buffer S
                <reason>: lost" (or "... events after it lost"), CPU 0's
                markers in order with one run missing that holds --damaged,
                "CPU:0 [LOST EVENTS]" just before the first marker after
                it, the last CPU's markers whole, and it records
  kaslr         as keep (markers, event, meta lines), plus the filtered
                functions by name, and last_boot_info's text delta equal to
                the difference of the two boots' _text
Every case also wants both boots to reach /init and power off, and no
WARNING/BUG/Oops/KASAN/UBSAN/lockdep report in either console (check-log.py's
patterns).
"""
import argparse
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location('checklog',
                                               os.path.join(HERE, 'check-log.py'))
checklog = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(checklog)

PAGE = 4096
# The markers guest/persist.sh writes: 1 .. N/2 on CPU 0, the rest on the
# last CPU.
N_MARKERS = 600
# Boot 1 sets the wall clock (boot_map traces with tai) 5 s back after
# this marker of CPU 0.
STEP = 75
FUNCS = ('vfs_read', 'vfs_write')
TRACE_LINE = re.compile(r'^\s*(.*?)\s+\[(\d+)\]\s+\S+\s+(\d+\.\d+):\s+(\S+?):?\s(.*)$')
# A marker; its event is printed by name (the ip of tracing_mark_write(),
# plus the text delta for a previous boot's entries) or as an address.
MARKER = re.compile(r'(tracing_mark_write|0x[0-9a-f]+): (rbp-\S+)\s*$')
FROM_PREV = re.compile(r'Ring buffer meta \[(\d+)\] is from previous boot!')
# Any per-CPU line of the validator that is not the "kept" one.
META_LINE = re.compile(r'Ring buffer (?:boot )?meta ?\[(\d+)\]')


def num(s):
    return int(s, 0)


def ram_io(args):
    if args.op == 'save':
        with open(args.ram, 'rb') as f, open(args.out, 'wb') as o:
            f.seek(num(args.off))
            o.write(f.read(num(args.len)))
    elif args.op == 'restore':
        data = open(args.inp, 'rb').read()
        with open(args.ram, 'r+b') as f:
            f.seek(num(args.off))
            f.write(data)
    elif args.op == 'corrupt':
        with open(args.ram, 'r+b') as f:
            f.seek(num(args.off))
            f.write(os.urandom(num(args.len)))
    elif args.op == 'corrupt-page':
        off, ln = num(args.off), num(args.len)
        with open(args.ram, 'r+b') as f:
            f.seek(off)
            data = f.read(ln)
            at = data.find(args.string.encode())
            if at < 0:
                print('"%s" is nowhere in the range' % args.string,
                      file=sys.stderr)
                return 1
            page = at - at % PAGE
            f.seek(off + page)
            f.write(os.urandom(PAGE))
            print(page)
    elif args.op == 'zero-in-page':
        off, ln = num(args.off), num(args.len)
        with open(args.ram, 'r+b') as f:
            f.seek(off)
            at = f.read(ln).find(args.string.encode())
            if at < 0:
                print('"%s" is nowhere in the range' % args.string,
                      file=sys.stderr)
                return 1
            page = at - at % PAGE
            f.seek(off + page + num(args.at))
            f.write(bytes(num(args.n)))
            print(page)
    return 0


def sections(path):
    """guest/persist.sh's output: {name: [lines]} (the last one wins)."""
    out = {}
    cur = None
    for line in checklog.read_lines(path):
        if line.startswith('=== '):
            cur = line[4:].strip()
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    for k in out:
        while out[k] and out[k][-1] == '':
            out[k].pop()
    return out


class Boot:
    def __init__(self, d, name):
        self.dir = d
        self.name = name
        self.console = checklog.read_lines(os.path.join(d, 'console.log'))
        self.sec = sections(os.path.join(d, 'guest.ktap'))
        try:
            self.rc = int(open(os.path.join(d, 'rc')).read().strip() or 1)
        except (OSError, ValueError):
            self.rc = -1
        # The validator's lines for boot_map: from trace.c's "mapped boot
        # instance" (its CPUs come up later) to the boot self-test's start,
        # whose own range buffers print the same kind of lines.
        start = next((i for i, l in enumerate(self.console)
                      if 'Tracing: mapped boot instance boot_map' in l), None)
        self.mapped = start is not None
        end = len(self.console)
        for i, l in enumerate(self.console[start or 0:], start or 0):
            if l.startswith(('# Subtest: ring_buffer_selftest', 'rb-init:')):
                end = i
                break
        self.validator = self.console[start:end] if self.mapped else []

    def problems(self):
        """Why this boot is not a clean one, as a list of reasons."""
        p = []
        if not any(l.startswith('rb-init:') for l in self.console):
            p.append('%s: never reached /init' % self.name)
        if self.rc == 124:
            p.append('%s: timed out' % self.name)
        elif self.rc != 0:
            p.append('%s: qemu exited with %d' % (self.name, self.rc))
        elif not any(l.startswith('rb-init: powering off') for l in self.console):
            p.append('%s: no power-off (panic?)' % self.name)
        rep = checklog.Report(self.name)
        checklog.check_kernel_log(self.console, rep)
        for ok, _, diag in rep.results:
            if not ok:
                p.append('%s: kernel log: %s' % (self.name, diag))
        if 'end' not in self.sec:
            p.append('%s: the guest did not finish (no "=== end")' % self.name)
        if not self.mapped:
            p.append('%s: no "Tracing: mapped boot instance boot_map"' % self.name)
        if 'no instance' in self.sec:
            p.append('%s: no instances/boot_map' % self.name)
        return p

    def kept_cpus(self):
        return {int(m.group(1)) for l in self.validator
                for m in [FROM_PREV.search(l)] if m}

    def meta_lines(self, cpu):
        return [l for l in self.validator
                for m in [META_LINE.search(l)]
                if m and int(m.group(1)) == cpu and not FROM_PREV.search(l)]

    def ncpus(self):
        return len([k for k in self.sec if k.startswith('buffer_meta cpu')])

    def text(self):
        t = self.sec.get('text', [])
        return int(t[0].split()[0], 16) if t and t[0].split() else None


def trace_entries(lines):
    """(cpu, time stamp, event name, rest) of every entry of a trace file."""
    out = []
    for l in lines:
        if l.startswith('#') or not l.strip():
            continue
        m = TRACE_LINE.match(l)
        if m:
            out.append((int(m.group(2)), float(m.group(3)), m.group(4),
                        m.group(5), l))
    return out


def check_meta(lines, cpu):
    """6.12's buffer_meta: 4 header lines, then buffer[i] per sub-buffer."""
    if not lines:
        return 'cpu%d buffer_meta: empty' % cpu
    hdr = {}
    want = ['head_buffer', 'commit_buffer', 'subbuf_size', 'nr_subbufs']
    for i, name in enumerate(want):
        if i >= len(lines):
            return 'cpu%d buffer_meta: only %d lines' % (cpu, len(lines))
        m = re.match(r'^%s: +(-?\d+)$' % name, lines[i])
        if not m:
            return 'cpu%d buffer_meta line %d: "%s", wanted "%s: N"' % (
                cpu, i + 1, lines[i], name)
        hdr[name] = int(m.group(1))
    nr = hdr['nr_subbufs']
    if hdr['subbuf_size'] != PAGE:
        return 'cpu%d buffer_meta: subbuf_size %d' % (cpu, hdr['subbuf_size'])
    if nr < 2:
        return 'cpu%d buffer_meta: nr_subbufs %d' % (cpu, nr)
    for k in ('head_buffer', 'commit_buffer'):
        if not 0 <= hdr[k] < nr:
            return 'cpu%d buffer_meta: %s %d not in 0..%d' % (cpu, k, hdr[k], nr - 1)
    body = lines[4:]
    if len(body) != nr:
        return 'cpu%d buffer_meta: %d buffer[] lines for nr_subbufs %d' % (
            cpu, len(body), nr)
    seen = set()
    for i, l in enumerate(body):
        m = re.match(r'^buffer\[(\d+)\]: +(-?\d+)$', l)
        if not m or int(m.group(1)) != i:
            return 'cpu%d buffer_meta: "%s", wanted "buffer[%d]: N"' % (cpu, l, i)
        v = int(m.group(2))
        if not 0 <= v < nr:
            return 'cpu%d buffer_meta: buffer[%d] = %d not in 0..%d' % (cpu, i, v, nr - 1)
        if v in seen:
            return 'cpu%d buffer_meta: sub-buffer %d twice' % (cpu, v)
        seen.add(v)
    return None


def check_boot_info(lines):
    """last_boot_info: "text delta:\\t%ld" and "data delta:\\t%ld"."""
    if len(lines) != 2:
        return None, 'last_boot_info has %d lines: %r' % (len(lines), lines)
    d = []
    for l, name in zip(lines, ('text', 'data')):
        m = re.match(r'^%s delta:\t(-?\d+)$' % name, l)
        if not m:
            return None, 'last_boot_info: "%s", wanted "%s delta:\\tN"' % (l, name)
        d.append(int(m.group(1)))
    return d, None


def marker_cpu(i, ncpu):
    return 0 if i <= N_MARKERS // 2 else ncpu - 1


def check_markers(entries, run, ncpu, cpus_lost=()):
    """The markers of run RUN in a trace: exactly 1..N on their CPUs, in
    order per CPU, except that a CPU in cpus_lost must show none."""
    errs = []
    got = {}
    for cpu, ts, ev, rest, l in entries:
        m = MARKER.search(l)
        if not m:
            continue
        mk = m.group(2)
        if m.group(1) != 'tracing_mark_write':
            errs.append('marker %s printed as %s: tracing_mark_write()\'s '
                        'address not resolved' % (mk, m.group(1)))
        if not mk.startswith('rbp-%s-' % run):
            errs.append('a marker of another run: %s' % mk)
            continue
        tail = mk[len('rbp-%s-' % run):]
        if not tail.isdigit():
            errs.append('unexpected marker %s' % mk)
            continue
        got.setdefault(cpu, []).append(int(tail))
    for cpu in range(ncpu):
        want = [i for i in range(1, N_MARKERS + 1) if marker_cpu(i, ncpu) == cpu]
        have = got.pop(cpu, [])
        if cpu in cpus_lost:
            if have:
                errs.append('cpu%d was rejected but shows markers %s' % (cpu, have))
        elif have != want:
            errs.append('cpu%d markers %s, wanted %s' % (cpu, have, want))
    for cpu, have in got.items():
        errs.append('markers %s on cpu%d, which wrote none' % (have, cpu))
    return errs


LOST = re.compile(r'^CPU:(\d+) \[LOST (\d+ )?EVENTS\]$')
SALVAGED = re.compile(r'Ring buffer meta \[0\] sub-buffer \d+ .*: '
                      r'(lost|events after it lost)$')


def check_salvage(lines, run, ncpu, damaged):
    """CPU 0's markers with one run lost around marker DAMAGED, the loss
    shown just before the first marker after it; the others whole."""
    entries = trace_entries(lines)
    e = check_markers(entries, run, ncpu, cpus_lost=(0,))
    errs = [x for x in e if not x.startswith('cpu0 was rejected')]
    have = []
    lost_before = []
    pending = False
    for l in lines:
        m = LOST.match(l.strip())
        if m:
            if int(m.group(1)) != 0:
                errs.append('"%s": a loss on a CPU that lost nothing' % l.strip())
            pending = True
            continue
        m = TRACE_LINE.match(l)
        mk = MARKER.search(l) if m else None
        if not m or int(m.group(2)) != 0 or not mk:
            continue
        tail = mk.group(2)[len('rbp-%s-' % run):]
        if not tail.isdigit():
            continue
        have.append(int(tail))
        if pending:
            lost_before.append(int(tail))
            pending = False
    want = [i for i in range(1, N_MARKERS + 1) if marker_cpu(i, ncpu) == 0]
    gone = [i for i in want if i not in have]
    if have != sorted(set(have)) or any(i not in want for i in have):
        errs.append('cpu0 markers out of order or twice: %s' % have[:10])
    elif damaged not in gone:
        errs.append('cpu0 still shows marker %d, whose sub-buffer was damaged'
                    % damaged)
    elif gone != list(range(gone[0], gone[-1] + 1)) or \
            gone[0] == want[0] or gone[-1] == want[-1]:
        errs.append('cpu0 lost markers %d..%d (%d of them), wanted one run '
                    'inside %d..%d' % (gone[0], gone[-1], len(gone),
                                       want[0], want[-1]))
    elif lost_before != [gone[-1] + 1]:
        errs.append('"CPU:0 [LOST EVENTS]" before markers %s, wanted before '
                    '%d only' % (lost_before, gone[-1] + 1))
    return errs, gone


def check_step(entries, run):
    """After the clock stepped back, CPU 0's stamps stay at marker STEP's:
    they never go back within a sub-buffer, and the step did happen."""
    ts = {}
    for cpu, t, ev, rest, l in entries:
        m = MARKER.search(l)
        if cpu == 0 and m and m.group(2).startswith('rbp-%s-' % run):
            tail = m.group(2)[len('rbp-%s-' % run):]
            if tail.isdigit():
                ts[int(tail)] = t
    if STEP not in ts or STEP + 1 not in ts:
        return 'cpu0 markers %d and %d missing' % (STEP, STEP + 1)
    if ts[1] >= ts[STEP]:
        return 'cpu0 markers 1..%d all at %.6f' % (STEP, ts[1])
    moved = [i for i in ts if i > STEP and ts[i] != ts[STEP]]
    if moved:
        return ('cpu0 marker %d at %.6f, marker %d at %.6f: the clock set back '
                'after %d did not hold the stamps' % (moved[0], ts[moved[0]], STEP,
                                                      ts[STEP], STEP))
    return None


def check_ts(entries):
    last = {}
    for cpu, ts, ev, rest, l in entries:
        if cpu in last and ts < last[cpu]:
            return 'cpu%d time went back: %.6f after %.6f' % (cpu, ts, last[cpu])
        last[cpu] = ts
    return None


def judge(args):
    b2 = Boot(args.boot2, 'boot 2')
    b1 = Boot(args.boot1, 'boot 1') if args.boot1 else None
    errs = []
    notes = []
    for b in (b1, b2):
        if b:
            errs += b.problems()
    run = args.run
    ncpu = b2.ncpus() or (b1.ncpus() if b1 else 0)
    if b1 and not errs:
        # Boot 1 itself: every marker went in.
        e = check_markers(trace_entries(b1.sec.get('trace after writing', [])),
                          run, ncpu)
        if e:
            errs += ['boot 1: ' + x for x in e]
        if 'written %d' % N_MARKERS not in b1.sec:
            errs.append('boot 1: the guest did not write its markers')
    if errs:
        return errs, notes
    if ncpu < 2:
        errs.append('boot 2: %d CPUs (wanted 2 or more)' % ncpu)
    for b in (b1, b2):
        if b and b.sec.get('tracing_on at boot') != ['0']:
            errs.append('%s: boot_map\'s tracing_on %s at boot (^traceoff)'
                        % (b.name, b.sec.get('tracing_on at boot')))
    entries = trace_entries(b2.sec.get('trace', []))
    kept = b2.kept_cpus()
    writers = {0, ncpu - 1}
    case = args.case
    if case in ('keep', 'kaslr'):
        missing = sorted(writers - kept)
        if missing:
            errs.append('no "Ring buffer meta [N] is from previous boot!" for cpu %s'
                        % missing)
        errs += check_markers(entries, run, ncpu)
        e = check_step(entries, run) if case == 'keep' else None
        if e:
            errs.append(e)
        notes.append('%d entries kept, cpus %s from the previous boot'
                     % (len(entries), sorted(kept)))
        if not any(ev == 'sched_switch' for _, _, ev, _, _ in entries):
            errs.append('no sched_switch event in boot 2\'s trace')
    elif case == 'zeroed':
        if kept:
            errs.append('"from previous boot" for cpu %s on zeroed RAM' % sorted(kept))
        mk = [m.group(2) for *_, l in entries for m in [MARKER.search(l)] if m]
        if mk:
            errs.append('markers on zeroed RAM: %s' % mk[:5])
        if entries:
            errs.append('%d entries on zeroed RAM, first: %s' % (len(entries), entries[0][4]))
    elif case == 'salvage':
        if 0 not in kept:
            errs.append('no "Ring buffer meta [0] is from previous boot!" after '
                        'one of its sub-buffers was damaged')
        said = [l.strip() for l in b2.validator if SALVAGED.search(l)]
        if len(said) != 1:
            errs.append('%d lines "Ring buffer meta [0] sub-buffer S <reason>: '
                        'lost", wanted one: %s' % (len(said), b2.meta_lines(0)[:3]))
        else:
            notes.append('"%s"' % said[0][said[0].index('Ring buffer'):])
        e, gone = check_salvage(b2.sec.get('trace', []), run, ncpu, args.damaged)
        errs += e
        if not e:
            notes.append('markers %d..%d lost, the loss shown before %d'
                         % (gone[0], gone[-1], gone[-1] + 1))
    elif case in ('corrupt_meta', 'corrupt_data'):
        if 0 in kept:
            errs.append('cpu0 "is from previous boot!" after its %s was corrupted'
                        % case.split('_')[1])
        if not b2.meta_lines(0):
            errs.append('no "Ring buffer ... meta ... [0]" line saying cpu0 was reset')
        else:
            notes.append('"%s"' % b2.meta_lines(0)[0].strip())
        # CPU 0's markers are gone; the last CPU's, if kept, are whole.
        e = check_markers(entries, run, ncpu, cpus_lost=(0,))
        last = ncpu - 1
        if last not in kept and any(x.startswith('cpu%d markers' % last) for x in e):
            # The last CPU was rejected too: allowed, but then with nothing.
            e = check_markers(entries, run, ncpu, cpus_lost=(0, last))
            notes.append('cpu%d was reset too' % last)
        elif last in kept:
            notes.append('cpu%d kept its markers' % last)
        errs += e
    e = check_ts(entries)
    if e:
        errs.append(e)
    # last_boot_info
    d, e = check_boot_info(b2.sec.get('last_boot_info', []))
    if e:
        errs.append(e)
    elif case == 'keep' and d != [0, 0]:
        errs.append('last_boot_info %s after two nokaslr boots of one kernel '
                    '(wanted 0 and 0)' % d)
    elif case == 'kaslr':
        t1, t2 = b1.text(), b2.text()
        if t1 is None or t2 is None:
            errs.append('no _text address from the guest')
        else:
            if d[0] != t2 - t1:
                errs.append('text delta %d, but _text moved by %d' % (d[0], t2 - t1))
            if t1 == t2:
                notes.append('both boots got the same KASLR offset%s: text delta 0'
                             % (' (twice)' if args.retried else ''))
            else:
                notes.append('text delta %d (data delta %d)' % (d[0], d[1]))
        # The filtered functions, by name, with a named caller.
        for f in FUNCS:
            if not any(ev == f and re.match(r'^<-[A-Za-z_]', rest)
                       for _, _, ev, rest, _ in entries):
                errs.append('no "%s <-caller" line in boot 2\'s trace' % f)
    for c in range(ncpu):
        e = check_meta(b2.sec.get('buffer_meta cpu%d' % c, []), c)
        if e:
            errs.append(e)
            break
    if case == 'zeroed' and 'trace after writing' in b2.sec:
        # The zeroed boot is the pair's boot 1: it records its markers.
        errs += ['records: ' + x for x in check_markers(
            trace_entries(b2.sec['trace after writing']), run, ncpu)]
        return errs, notes
    # It records again after a reset, and only the new marker is there.
    after = trace_entries(b2.sec.get('trace after reset', []))
    mk = [m.groups() for *_, l in after for m in [MARKER.search(l)] if m]
    if [x[1] for x in mk] != ['rbp-%s-again' % run]:
        errs.append('after the reset the trace has markers %s, wanted [rbp-%s-again]'
                    % ([x[1] for x in mk][:5], run))
    elif mk[0][0] != 'tracing_mark_write':
        # 6.12's trace.c keeps tr->text_delta when the buffer is reset
        # through the trace file (upstream fixed it later: "tracing: Reset
        # last_boot_info if ring buffer is reset"); the new marker's ip
        # then gets the old boot's delta added.  Not the ring buffer's.
        notes.append('after the reset the new marker prints as %s (6.12 '
                     'trace.c keeps the text delta across a reset)' % mk[0][0])
    return errs, notes


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='op', required=True)
    p = sub.add_parser('save')
    p.add_argument('ram'); p.add_argument('off'); p.add_argument('len'); p.add_argument('out')
    p = sub.add_parser('restore')
    p.add_argument('ram'); p.add_argument('off'); p.add_argument('inp')
    p = sub.add_parser('corrupt')
    p.add_argument('ram'); p.add_argument('off'); p.add_argument('len')
    p = sub.add_parser('corrupt-page')
    p.add_argument('ram'); p.add_argument('off'); p.add_argument('len')
    p.add_argument('string')
    p = sub.add_parser('zero-in-page')
    p.add_argument('ram'); p.add_argument('off'); p.add_argument('len')
    p.add_argument('string'); p.add_argument('at'); p.add_argument('n')
    p = sub.add_parser('judge')
    p.add_argument('case', choices=['keep', 'zeroed', 'corrupt_meta',
                                    'corrupt_data', 'salvage', 'kaslr'])
    p.add_argument('--damaged', type=int, default=0)
    p.add_argument('--run', required=True)
    p.add_argument('--boot1')
    p.add_argument('--boot2', required=True)
    p.add_argument('--retried', action='store_true')
    args = ap.parse_args()
    if args.op != 'judge':
        return ram_io(args)
    errs, notes = judge(args)
    diag = '; '.join(errs[:4] + (['...'] if len(errs) > 4 else [])) if errs \
        else '; '.join(notes)
    print('%s\t%s' % ('not ok' if errs else 'ok', diag))
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main())
