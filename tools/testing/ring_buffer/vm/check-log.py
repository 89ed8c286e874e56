#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-log.py: turn one boot of the test kernel into KTAP results.

Usage: check-log.py --name NAME --console LOG --config .config
                    [--guest KTAP] [--qemu-rc RC] [--timeout SECS]
                    [--results FILE]

Reads the serial console log (kernel messages) and the guest's KTAP (the
second serial port), and reports as results:
  - boot: the kernel reached /init, QEMU ended by power-off (not a timeout),
  - ring_buffer_selftest: every result of our boot self-test, its plan and
    its summary line (a missing summary is a failure),
  - ftrace startup: each "Testing ...: PASSED/FAILED" of FTRACE_STARTUP_TEST,
  - event startup: each round of EVENT_TRACE_STARTUP_TEST,
  - stock ring buffer startup test (STOCK=1 only: the stock file has its own),
  - kernel log: one failure per WARNING/BUG/Oops/lockdep/KASAN/UBSAN/RCU stall
    report, or one pass when there is none,
  - guest: every result of the in-guest checks (when --guest is given).
    A failed check's evidence ("# evidence NAME DATA" lines: a gzipped tar
    in base64, see send_evidence in guest/checks.sh) is unpacked into
    evidence/NAME/ beside the guest's KTAP, and "BOOT/" in the failure
    lines becomes that directory.
With --guest-only the boot's own expectations (self-test, ftrace startup
tests) are left out: for boots that skip them (TRACECMD_LOOP).
What the kernel config enables is expected: a test that is configured but
printed nothing is a failure.

Prints a KTAP document ("# Subtest: NAME") ending with
"# NAME: N passed, M failed", appends "ok|not ok<TAB>NAME: test<TAB>diag"
lines to --results, and exits 1 when anything failed.
"""
import argparse
import base64
import io
import os
import re
import sys
import tarfile

TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT = re.compile(r'^(not ok|ok) (\d+)(?: (?:- )?([^#]*?))?\s*(?:#\s*(.*))?$')
# The first line of every report the kernel's checkers print.
BAD = re.compile(
    r'^(WARNING:|BUG:|Oops|kernel BUG at|general protection fault|'
    r'Kernel panic|UBSAN:|Unable to handle|INFO: task .* blocked|'
    r'DEBUG_LOCKS_WARN_ON|INFO: trying to register non-static key|'
    r'.*rcu: INFO: .*stall|.*detected stalls? on CPU)')


class Report:
    def __init__(self, name):
        self.name = name
        self.results = []           # (ok, test name, diagnostic)

    def add(self, ok, test, diag=''):
        self.results.append((bool(ok), test, diag))


def read_lines(path):
    """The file's lines, time stamps and carriage returns stripped."""
    try:
        with open(path, 'rb') as f:
            data = f.read().decode('utf-8', 'replace')
    except FileNotFoundError:
        return []
    return [TS.sub('', l.rstrip('\r')) for l in data.split('\n')]


def read_config(path):
    conf = {}
    for line in open(path):
        m = re.match(r'^(CONFIG_\w+)=(.*)$', line.strip())
        if m:
            conf[m.group(1)] = m.group(2)
    return conf


EVIDENCE = re.compile(r'^# evidence ([A-Za-z0-9_][A-Za-z0-9_./-]*) (\S+)$')


def unpack_evidence(lines, bootdir):
    """Unpack every "# evidence NAME ..." block under BOOTDIR/evidence.

    Returns the lines without those blocks and a list of problems.
    """
    rest, data, problems = [], {}, []
    for line in lines:
        m = EVIDENCE.match(line)
        if not m:
            rest.append(line)
            continue
        name, word = m.group(1), m.group(2)
        if word == 'end':
            blob = ''.join(data.pop(name, []))
            try:
                raw = base64.b64decode(blob)
                with tarfile.open(fileobj=io.BytesIO(raw), mode='r:gz') as t:
                    for member in t.getmembers():
                        if (member.name.startswith('/') or '..' in member.name
                                or not (member.isfile() or member.isdir())):
                            raise ValueError('bad member %s' % member.name)
                    t.extractall(os.path.join(bootdir, 'evidence'))
            except (ValueError, OSError, tarfile.TarError) as e:
                problems.append('evidence %s: %s' % (name, e))
        else:
            data.setdefault(name, []).append(word)
    for name in data:
        problems.append('evidence %s: no end line (cut off)' % name)
    return rest, problems


def parse_ktap(lines, subtest, summary_re, rep, prefix):
    """Parse one KTAP subtest: plan, top-level results, summary line.

    Returns True when the subtest header was found.
    """
    try:
        start = lines.index('# Subtest: ' + subtest)
    except ValueError:
        return False
    plan = None
    got = []
    summary = None
    for line in lines[start + 1:]:
        if plan is None:
            m = re.match(r'^1\.\.(\d+)$', line)
            if m:
                plan = int(m.group(1))
                continue
        m = RESULT.match(line)
        if m:
            ok = m.group(1) == 'ok'
            test = (m.group(3) or '').strip() or 'test %s' % m.group(2)
            diag = (m.group(4) or '').strip()
            # A skipped case is not a pass.
            if diag.upper().startswith('SKIP'):
                ok = False
                diag = 'skipped: ' + diag
            got.append((ok, test, diag))
            continue
        m = summary_re.match(line)
        if m:
            summary = (int(m.group(1)), int(m.group(2)))
            break
    for ok, test, diag in got:
        rep.add(ok, '%s: %s' % (prefix, test), diag)
    if plan is None:
        rep.add(False, '%s: plan' % prefix, 'no "1..N" line')
    elif plan != len(got):
        rep.add(False, '%s: plan' % prefix,
                'plan 1..%d but %d results' % (plan, len(got)))
    if summary is None:
        rep.add(False, '%s: summary' % prefix,
                'missing summary line (crashed, hung or cut short?)')
    else:
        npass = sum(1 for r in got if r[0])
        if summary != (npass, len(got) - npass):
            rep.add(False, '%s: summary' % prefix,
                    'summary says %d passed, %d failed; results say %d, %d'
                    % (summary + (npass, len(got) - npass)))
        elif not got:
            rep.add(False, '%s: summary' % prefix, 'no results at all')
    return True


def check_ftrace_startup(lines, rep):
    """FTRACE_STARTUP_TEST: 'Testing <what>: ... PASSED' or 'FAILED!' (the
    event filter test says 'OK').
    With pr_cont, the verdict may land on a later line."""
    n = 0
    for i, line in enumerate(lines):
        m = re.match(r'^Testing (?!event |all events)(.+?): ?(.*)$', line)
        if not m:
            continue
        n += 1
        what, rest = m.group(1), m.group(2)
        verdict = None
        # The verdict comes before the next "Testing" line; ftrace prints
        # progress like "(1 0 1 0 0)" on lines of their own until then.
        for cand in [rest] + lines[i + 1:i + 200]:
            if 'PASSED' in cand or re.search(r'(^|\s)OK\s*$', cand):
                verdict = True
                break
            if 'FAILED' in cand:
                verdict = False
                break
            if cand is not rest and cand.startswith('Testing '):
                break
        rep.add(verdict is True, 'ftrace startup: %s' % what,
                '' if verdict else ('FAILED' if verdict is False
                                    else 'no PASSED/FAILED verdict'))
    if n == 0:
        rep.add(False, 'ftrace startup', 'FTRACE_STARTUP_TEST is on but no '
                '"Testing ..." line (disabled, or the console lost it?)')


def check_event_startup(lines, rep, with_function):
    """EVENT_TRACE_STARTUP_TEST: rounds of 'Testing event X: OK'."""
    rounds = [i for i, l in enumerate(lines)
              if l.startswith('Running tests on trace events:')]
    want = 2 if with_function else 1
    if len(rounds) < want:
        rep.add(False, 'event startup', 'expected %d rounds of event tests, '
                'saw %d' % (want, len(rounds)))
    for k, start in enumerate(rounds):
        end = rounds[k + 1] if k + 1 < len(rounds) else len(lines)
        ok_events = bad = 0
        diag = ''
        all_ok = False
        for line in lines[start:end]:
            if re.match(r'^Testing event (system )?\S+: ?OK', line):
                ok_events += 1
            elif re.match(r'^Testing event ', line) and 'OK' not in line:
                # pr_cont may have split the OK onto the next line.
                pass
            if line.startswith('Testing all events: OK'):
                all_ok = True
            if re.match(r'^(error (enabling|disabling)|Enabled event during '
                        r'self test|Failed to enable function tracer)', line):
                bad += 1
                diag = diag or line
        ok = all_ok and bad == 0 and ok_events > 0
        if not diag and not all_ok:
            diag = 'no "Testing all events: OK"'
        rep.add(ok, 'event startup: round %d (%d events OK)'
                % (k + 1, ok_events), diag)


def check_kernel_log(lines, rep):
    """One failure per report; print the report's first lines."""
    reports = [i for i, l in enumerate(lines) if BAD.match(l)]
    # A stack dump with no report header above it is a report too.
    for i, l in enumerate(lines):
        if l.startswith('Call Trace:') and not any(0 < i - r < 80
                                                   for r in reports):
            reports.append(i)
    reports.sort()
    for i in reports:
        rep.add(False, 'kernel log: report', lines[i].strip())
        print('# ---- kernel log around the report ----')
        for l in lines[max(0, i - 2):i + 30]:
            print('# ' + l)
    if not reports:
        rep.add(True, 'kernel log: no WARNING/BUG/Oops/lockdep/KASAN/UBSAN/'
                'RCU stall report')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--name', required=True)
    ap.add_argument('--console', required=True)
    ap.add_argument('--config', required=True)
    ap.add_argument('--guest')
    ap.add_argument('--qemu-rc', type=int, default=0)
    ap.add_argument('--timeout', type=int, default=0)
    ap.add_argument('--results')
    ap.add_argument('--guest-only', action='store_true')
    ap.add_argument('--no-startup', action='store_true',
                    help='the boot skipped ftrace\'s startup tests '
                    '(trace_event=): expect none')
    args = ap.parse_args()

    conf = read_config(args.config)
    on = lambda opt: conf.get('CONFIG_' + opt) == 'y'
    lines = read_lines(args.console)
    rep = Report(args.name)

    # Did the boot get anywhere, and did it end well?
    if not lines or not any(l.strip() for l in lines):
        rep.add(False, 'boot: console output', 'empty console log')
    rep.add(any(l.startswith('rb-init:') for l in lines), 'boot: reached /init',
            '' if any(l.startswith('rb-init:') for l in lines)
            else 'the kernel never ran /init')
    if args.qemu_rc == 124:
        rep.add(False, 'boot: finished', 'timed out after %ds' % args.timeout)
    elif args.qemu_rc != 0:
        rep.add(False, 'boot: finished', 'qemu exited with %d' % args.qemu_rc)
    else:
        off = any(l.startswith('rb-init: powering off') for l in lines)
        rep.add(off, 'boot: finished', '' if off else
                'QEMU stopped without the guest powering off (panic?)')

    # Our KTAP self-test, from the console.
    if on('RING_BUFFER_STARTUP_TEST') and not args.guest_only:
        if not parse_ktap(lines, 'ring_buffer_selftest',
                          re.compile(r'^# ring_buffer_selftest: (\d+) passed, '
                                     r'(\d+) failed'), rep,
                          'ring_buffer_selftest'):
            rep.add(False, 'ring_buffer_selftest',
                    'no "# Subtest: ring_buffer_selftest" in the kernel log')
    # The stock file's own startup test, when it is there (STOCK=1).
    if (any(l.startswith('Running ring buffer tests...') for l in lines)
            and not args.guest_only):
        ok = any(l.startswith('Ring buffer PASSED!') for l in lines)
        rep.add(ok, 'stock ring buffer startup test',
                '' if ok else 'no "Ring buffer PASSED!"')
    startup = not args.guest_only and not args.no_startup
    if on('FTRACE_STARTUP_TEST') and startup:
        check_ftrace_startup(lines, rep)
    if on('EVENT_TRACE_STARTUP_TEST') and startup:
        check_event_startup(lines, rep, on('FUNCTION_TRACER'))
    check_kernel_log(lines, rep)

    # The in-guest checks, from the second serial port.
    if args.guest:
        bootdir = os.path.dirname(os.path.abspath(args.guest))
        glines, problems = unpack_evidence(read_lines(args.guest), bootdir)
        glines = [l.replace('(evidence: BOOT/', '(evidence: %s/' % bootdir)
                  for l in glines]
        for p in problems:
            rep.add(False, 'guest: evidence', p)
        if not parse_ktap(glines, 'guest',
                          re.compile(r'^# guest: (\d+) passed, (\d+) failed'),
                          rep, 'guest'):
            rep.add(False, 'guest', 'no guest KTAP')
        elif '# guest: done' not in glines:
            rep.add(False, 'guest: done', 'the guest checks did not finish')
        for l in glines:
            if l.startswith('# ') and not l.startswith('# Subtest'):
                print(l)

    npass = sum(1 for r in rep.results if r[0])
    nfail = len(rep.results) - npass
    print('KTAP version 1')
    print('# Subtest: %s' % args.name)
    print('1..%d' % len(rep.results))
    for i, (ok, test, diag) in enumerate(rep.results, 1):
        print('%s %d %s%s' % ('ok' if ok else 'not ok', i, test,
                              ' # ' + diag if diag else ''))
    print('# %s: %d passed, %d failed' % (args.name, npass, nfail))
    if args.results:
        with open(args.results, 'a') as f:
            for ok, test, diag in rep.results:
                f.write('%s\t%s: %s\t%s\n' % ('ok' if ok else 'not ok',
                                             args.name, test, diag))
    return 1 if nfail else 0


if __name__ == '__main__':
    sys.exit(main())
