#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
Mutation testing of kernel/trace/ring_buffer.c and the files compiled with
it (SOURCES: ring_buffer_range.c, ring_buffer_internal.h and
ring_buffer_map.c, next to it):
each mutant of mutants.txt is applied to a copy of its file (mutants.txt's
"file", ring_buffer.c by default) under the build directory, never to the
file itself; the copies are compiled into the ASan test program, which is
run against the harness until a test fails.  One KTAP line per mutant,
then the score.

Phases, cheapest first, each stopping at the first failing case:
  litmus   ordering mutants only: the litmus mutant named in the list must
           come out Sometimes under herd7 (litmus/run.sh on that file)
  fast     unit, mapping, persistent-range, model cases, corpus replay
  sweeps   the instruction sweeps (an interrupt at each instruction),
           map_ipi_in_write and map_irq_in_get_reader, MUT_JOBS at once
  stress   the stress cases, STRESS_SECS seconds each
A phase that runs past its timeout, or whose processes are on no CPU for
MUT_STALL seconds (default 300; stacks go to its log), kills the mutant (a
hang); so does a crash (ASan, UBSan, a signal).  A phase that runs no
case is an error, never a survival.  A mutant that does not compile, or whose
pattern does not match exactly once, is an error in the list: the run
fails, naming it.

A survivor is "not ok" unless tools/testing/ring_buffer/README.md lists it
as equivalent (a line "- `NAME` (equivalent): why"): then it is reported
as a skip.  The run fails when any survivor is not so listed, on any error,
or when fewer than 90% of the mutants run are killed.

Environment (set by the Makefile): MUT_CC, MUT_CFLAGS, MUT_LDFLAGS, MUT_RB_TEXT,
MUT_OBJS (the test program's objects but rb_wrap.o), MUT_WRAP (rb_wrap.c),
MUT_SRC (ring_buffer.c; the other SOURCES are taken from its directory),
MUT_WORK (a directory of ours), MUT_CORPUS.
"""
import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(HERE)
LIST = os.path.join(HERE, 'mutants.txt')
# Blind batches: mutants written by someone shown the code, not the tests
# (blind-N.txt, the same format).  Each is scored on its own.
README = os.path.join(HARNESS, 'README.md')
LITMUS = os.path.join(HARNESS, 'litmus')
ANCHOR_LINES = 25
# The slow cases: the instruction sweeps (also those of the time stamps,
# t_clock.c), the mapping cases that send an IPI or an irq at each point
# of a write or of GET_READER, the NMI dumps.  The sweeps phase runs them
# MUT_JOBS (default 2) at once, each in a process of its own (rbtest
# --jobs).  Names are prefixes.
SWEEPS = ('range_crash_sweep', 'unit_irq_at_each_instruction', 'map_ipi_in_write',
          'map_irq_in_get_reader', 'attack_nmi_dump_in_', 'attack_control_chaos',
          'range_clock_back_', 'range_clock_failed_move', 'range_discard_zero_',
          'unit_clock_back_', 'unit_clock_failed_move', 'unit_clock_change_irq_in_move',
          'unit_clock_switch_irq_in_', 'unit_clock_far_jump_irq_in_move')
JOBS = os.environ.get('MUT_JOBS', '2')
TIMEOUT = {'fast': 900, 'sweeps': 1800, 'stress': 180, 'litmus': 300}
# range_oracle_boots' budget in the fast phase (make test gives it 40 s)
ORACLE_SECS = os.environ.get('RANGE_ORACLE_SECS', '15')
STRESS_SECS = os.environ.get('STRESS_SECS', '5')
TARGET = 0.90
# The files a mutant may change, all in MUT_SRC's directory: the first is
# MUT_SRC's own name, the default of a mutant's "file".  A file missing
# there (as for the stock 6.12 source) is left out.
SOURCES = ('ring_buffer.c', 'ring_buffer_range.c', 'ring_buffer_internal.h',
           'ring_buffer_map.c')


class ListError(Exception):
    pass


def parse(path):
    muts, cur = [], None
    keys = ('mutant', 'kind', 'area', 'file', 'anchor', 'find', 'into', 'litmus',
            'subset')
    with open(path) as f:
        for nr, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip():
                cur = None
                continue
            if line.startswith('#'):
                continue
            key, _, val = line.partition(' ')
            if key not in keys:
                raise ListError('%s:%d: unknown key %r' % (path, nr, key))
            if key == 'mutant':
                cur = {'name': val, 'line': nr}
                muts.append(cur)
                continue
            if cur is None:
                raise ListError('%s:%d: %s outside a mutant' % (path, nr, key))
            cur[key] = True if key == 'subset' else val
    names = set()
    for m in muts:
        for key in ('kind', 'area', 'find', 'into'):
            if key not in m:
                raise ListError('mutant %s: no %s' % (m['name'], key))
        if m['name'] in names:
            raise ListError('mutant %s: listed twice' % m['name'])
        m.setdefault('file', SOURCES[0])
        if m['file'] not in SOURCES:
            raise ListError('mutant %s: file %s is none of %s' %
                            (m['name'], m['file'], ', '.join(SOURCES)))
        names.add(m['name'])
    return muts


def pattern(text):
    """A find text as a regex: "\\n" is a line break plus indentation."""
    return r'\n[ \t]*'.join(re.escape(p) for p in text.split(r'\n'))


def apply(srcs, m):
    """The sources ({file name: text}) with @m applied to its file, or
    ListError when the file is missing or the pattern is not unique."""
    if m['file'] not in srcs:
        raise ListError('mutant %s: no %s' % (m['name'], m['file']))
    out = dict(srcs)
    out[m['file']] = apply_one(srcs[m['file']], m)
    return out


def apply_one(src, m):
    """The mutated text of one file, or ListError when the pattern is not
    unique in it."""
    start, end = 0, len(src)
    if 'anchor' in m:
        hits = [x.start() for x in re.finditer(re.escape(m['anchor']), src)]
        if len(hits) != 1:
            raise ListError('mutant %s: anchor %r matches %d times in %s' %
                            (m['name'], m['anchor'], len(hits), m['file']))
        start = hits[0] + len(m['anchor'])
        end = start
        for _ in range(ANCHOR_LINES):
            nl = src.find('\n', end + 1)
            if nl < 0:
                end = len(src)
                break
            end = nl
    found = list(re.finditer(pattern(m['find']), src[start:]))
    if 'anchor' in m:
        found = found[:1]
        if found and start + found[0].start() > end:
            found = []
    if len(found) != 1:
        raise ListError('mutant %s: find %r matches %d times%s in %s' %
                        (m['name'], m['find'], len(found),
                         ' near its anchor' if 'anchor' in m else '', m['file']))
    a = start + found[0].start()
    b = start + found[0].end()
    into = m['into'].replace(r'\n', '\n').replace(r'\t', '\t')
    return src[:a] + into + src[b:]


def equivalents():
    out = {}
    try:
        with open(README) as f:
            for line in f:
                r = re.match(r'^- `([\w.+-]+)` \(equivalent\)', line)
                if r:
                    out[r.group(1)] = True
    except OSError:
        pass
    return out


RUNNING = []


def stop(sig, frame):
    """Stopped: end the test program's process group too."""
    for p in RUNNING:
        try:
            os.killpg(p.pid, 9)
        except OSError:
            pass
    sys.exit(128 + sig)


# A run whose processes (the test program's process group) have not been
# on a CPU at all for STALL seconds is a hang: killed at once, with the
# stack of every thread (gdb), instead of waiting out its timeout.  The
# test program's own watchdog reports a stall after 180 s; this one is the
# backstop for what it cannot see (a program that never starts its cases).
STALL = int(os.environ.get('MUT_STALL', '300'))
LAST_STOP = {'why': None}


def group_cpu(pgid):
    """(ticks on a CPU of every process in @pgid, their pids)."""
    total, pids = 0, []
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % d) as f:
                st = f.read()
        except OSError:
            continue
        fields = st[st.rindex(')') + 2:].split()
        if int(fields[2]) != pgid:
            continue
        pids.append(int(d))
        total += int(fields[11]) + int(fields[12])
    return total, pids


def stacks(pids, f):
    for pid in pids:
        r = subprocess.run(['timeout', '60', 'gdb', '-batch', '-nx', '-p', str(pid),
                            '-ex', 'thread apply all bt'], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in r.stdout.splitlines():
            if line.startswith(('Thread', '#')):
                f.write('# pid %d: %s\n' % (pid, line))


def run(cmd, timeout, log):
    """(rc, output, seconds); rc None when stopped: LAST_STOP['why'] says why."""
    t0 = time.time()
    LAST_STOP['why'] = None
    with open(log, 'w') as f:
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                             start_new_session=True,
                             env=dict(os.environ,
                                      ASAN_OPTIONS='detect_leaks=0:abort_on_error=1',
                                      UBSAN_OPTIONS='print_stacktrace=1',
                                      RANGE_ORACLE_SECS=ORACLE_SECS))
        RUNNING.append(p)
        rc, seen, moved = None, None, time.time()
        while rc is None:
            try:
                rc = p.wait(timeout=10)
                break
            except subprocess.TimeoutExpired:
                pass
            cpu, pids = group_cpu(p.pid)
            if cpu != seen:
                seen, moved = cpu, time.time()
            if time.time() - moved > STALL:
                f.write('# run.py: no process ran for %d s: a hang\n' % STALL)
                f.flush()
                stacks(pids, f)
                LAST_STOP['why'] = 'hang (no CPU for %d s, stacks in %s)' % (STALL, log)
            elif time.time() - t0 > timeout:
                LAST_STOP['why'] = 'timeout (%d s)' % timeout
            else:
                continue
            os.killpg(p.pid, 9)
            p.wait()
            break
        RUNNING.remove(p)
    with open(log, errors='replace') as f:
        return rc, f.read(), time.time() - t0


def first_failure(out):
    for line in out.splitlines():
        r = re.match(r'^not ok (\d+|-) (\S+)', line)
        if r:
            return r.group(2)
    return None


class Runner:
    def __init__(self, work):
        self.work = work
        self.cc = shlex.split(os.environ['MUT_CC'])
        self.cflags = shlex.split(os.environ['MUT_CFLAGS'])
        self.ldflags = shlex.split(os.environ.get('MUT_LDFLAGS', ''))
        self.objs = os.environ['MUT_OBJS'].split()
        self.wrap = os.environ['MUT_WRAP']
        self.corpus = os.environ['MUT_CORPUS']
        self.names = None
        self.sweeps = None
        self.herd = None
        self.last_case = None

    def build(self, srcs, tag):
        """Compile the sources {file name: text}, written to their own
        directory (ring_buffer.c finds the header next to it)."""
        d = os.path.join(self.work, tag)
        os.makedirs(d, exist_ok=True)
        for name, text in srcs.items():
            with open(os.path.join(d, name), 'w') as f:
                f.write(text)
        obj, prog = os.path.join(d, 'rb_wrap.o'), os.path.join(d, 'rbtest')
        defs = ['-DRB_SRC="%s"' % os.path.join(d, SOURCES[0])]
        if SOURCES[1] in srcs:
            defs.append('-DRB_RANGE_SRC="%s"' % os.path.join(d, SOURCES[1]))
        if SOURCES[3] in srcs:
            defs.append('-DRB_MAP_SRC="%s"' % os.path.join(d, SOURCES[3]))
        cmd = self.cc + self.cflags + defs + ['-c', self.wrap, '-o', obj]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if r.returncode == 0 and os.environ.get('MUT_RB_TEXT'):
            r = subprocess.run(shlex.split(os.environ['MUT_RB_TEXT']) + [obj],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
        if r.returncode == 0:
            r = subprocess.run(self.cc + self.cflags + self.ldflags +
                               ['-o', prog, obj] + self.objs + ['-lm'],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
        with open(os.path.join(d, 'build.log'), 'w') as f:
            f.write(r.stdout)
        return prog if r.returncode == 0 else None

    def case_names(self, prog):
        if self.names is None:
            r = subprocess.run([prog, '--list'], stdout=subprocess.PIPE,
                               text=True, check=True)
            self.names = r.stdout.split()
        return self.names

    def phase_args(self, prog, phase):
        if phase == 'fast':
            return ['--fail-fast', '--corpus', self.corpus,
                    '--skip', ','.join(SWEEPS + ('stress_',))]
        if phase == 'sweeps':
            want = self.sweeps or SWEEPS
            # exact names: a --skip prefix would also skip a longer name
            cases = [n for n in self.case_names(prog) if n.startswith(want)]
            return ['--fail-fast', '--jobs', JOBS, '--cases', ','.join(cases) or '-']
        return ['--fail-fast', '--only', 'stress_', '--stress-secs', STRESS_SECS]

    def base_passes(self, base, case):
        """Does the unmutated file pass @case (run again, alone)?"""
        if case in ('timeout', 'corpus_replay'):
            args = ['--corpus', self.corpus, '--only', 'corpus_replay'] \
                if case == 'corpus_replay' else None
            if args is None:
                return True
        else:
            args = ['--only', case]
        rc, out, _ = run([base] + args, TIMEOUT['sweeps'],
                         os.path.join(self.work, 'base', 'confirm.log'))
        return rc == 0 and first_failure(out) is None

    def litmus(self, m, d):
        """'killed', 'not-sometimes' or 'no-herd7'."""
        path = os.path.join(LITMUS, m['litmus'])
        if not os.path.exists(path):
            raise ListError('mutant %s: no litmus file %s' % (m['name'], m['litmus']))
        rc, out, _ = run(['bash', os.path.join(LITMUS, 'run.sh'), path],
                         TIMEOUT['litmus'], os.path.join(d, 'litmus.log'))
        if '1..0 # SKIP' in out:
            return 'no-herd7'
        if rc == 0 and re.search(r'^ok 1 .*Sometimes', out, re.M):
            return 'killed'
        return 'not-sometimes'

    def test(self, prog, phases, d):
        """(verdict, why, seconds)."""
        total = 0.0
        for phase in phases:
            log = os.path.join(d, phase + '.log')
            rc, out, secs = run([prog] + self.phase_args(prog, phase),
                                TIMEOUT[phase], log)
            total += secs
            self.last_case = None
            if rc is None:
                return 'killed', '%s (%s phase)' % (LAST_STOP['why'], phase), total
            if re.search(r'^# no case ran', out, re.M):
                # a phase that runs nothing proves nothing
                return 'error', 'the %s phase selects no case (see %s)' % (phase, log), total
            failed = first_failure(out)
            self.last_case = failed
            if failed:
                return 'killed', '%s (%s)' % (failed, phase), total
            if rc != 0:
                return 'killed', 'crash, exit %d (%s phase, see %s)' % (rc, phase, log), total
            ran = re.search(r'^(\d+) passed, 0 failed', out, re.M)
            if not ran:
                return 'killed', 'no summary (%s phase, see %s)' % (phase, log), total
            if int(ran.group(1)) == 0:
                # a phase that ran nothing proves nothing
                return 'error', 'the %s phase ran no case (see %s)' % (phase, log), total
        return 'survived', '', total


def main():
    args = sys.argv[1:]
    subset = '--subset' in args
    check = '--check' in args
    only = None
    if '--only' in args:
        only = args[args.index('--only') + 1].split(',')
    # Triage of a survivor: --phases fast,sweeps,stress (a subset, in that
    # order) and --sweeps PREFIX,... (the sweep cases run).  A mutant that
    # survives such a run has not been through every test.
    phases = ['fast', 'sweeps', 'stress']
    if '--phases' in args:
        want = args[args.index('--phases') + 1].split(',')
        phases = [p for p in phases if p in want]
    sweeps = None
    if '--sweeps' in args:
        sweeps = tuple(args[args.index('--sweeps') + 1].split(','))
    try:
        muts = parse(LIST)
        for m in muts:
            m['batch'] = 'own'
        for path in sorted(glob.glob(os.path.join(HERE, 'blind-*.txt'))):
            batch = os.path.basename(path)[:-4]
            more = parse(path)
            for m in more:
                m['batch'] = batch
            known = {m['name'] for m in muts}
            twice = [m['name'] for m in more if m['name'] in known]
            if twice:
                raise ListError('mutant %s: listed twice' % twice[0])
            muts += more
        main_src = os.environ.get('MUT_SRC', os.path.join(
            HARNESS, '../../../kernel/trace/ring_buffer.c'))
        real = {}
        for name in SOURCES:
            path = os.path.join(os.path.dirname(main_src), name)
            if name == SOURCES[0]:
                path = main_src
            if os.path.exists(path):
                with open(path) as f:
                    real[name] = f.read()
        texts = {m['name']: apply(real, m) for m in muts}
    except ListError as e:
        print('KTAP version 1\n1..1\nnot ok 1 mutants # %s\n0 passed, 1 failed' % e)
        return 1
    if check:
        print('# %d mutants, every pattern matches once (%s)' %
              (len(muts), ', '.join('%d in %s' % (n, f) for f, n in
                                    ((f, sum(m['file'] == f for m in muts))
                                     for f in SOURCES) if n)))
        return 0
    batch = None
    if '--batch' in args:
        batch = args[args.index('--batch') + 1]
    sel = [m for m in muts if (not subset or m.get('subset')) and
           (not only or m['name'] in only) and (not batch or m['batch'] == batch)]
    if batch and not sel:
        print('# --batch %s selects no mutant' % batch)
        return 1
    if only and len(sel) != len(only):
        print('# --only names a mutant not in the list')
        return 1
    work = os.environ['MUT_WORK']
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    r = Runner(work)
    r.sweeps = sweeps
    t0 = time.time()
    print('KTAP version 1')
    print('# %s: %d of %d mutants of %s' % ('quick subset, under 10 minutes (make mutants-all runs every one)'
                                           if subset else 'every mutant', len(sel),
                                           len(muts), os.environ.get('MUT_SRC')))
    print('1..%d' % len(sel))
    sys.stdout.flush()
    base = r.build(real, 'base')
    if not base:
        print('not ok 1 mutants # the unmutated file does not build\n0 passed, 1 failed')
        return 1
    equiv = equivalents()
    st = {'nr': 0, 'killed': 0, 'survived': 0, 'errors': 0, 'passed': 0,
          'failed': 0, 'skipped': 0}
    per = {}
    survivors = []

    def report(m, verdict, why, secs, note=''):
        st['nr'] += 1
        desc = 'mutant %s [%s, %s]' % (m['name'], m['kind'], m['area'])
        b = per.setdefault(m['batch'], [0, 0])
        b[0] += verdict == 'killed'
        b[1] += verdict in ('killed', 'survived') and m['name'] not in equiv \
            or verdict == 'killed'
        if verdict == 'killed':
            st['killed'] += 1
            st['passed'] += 1
            print('ok %d %s # killed by %s (%.0f s)' % (st['nr'], desc, why, secs))
        elif verdict == 'error':
            st['errors'] += 1
            st['failed'] += 1
            print('not ok %d %s # ERROR in the list: %s' % (st['nr'], desc, why))
        elif m['name'] in equiv:
            st['survived'] += 1
            st['skipped'] += 1
            survivors.append(m['name'])
            print('ok %d %s # SKIP survived%s: equivalent, see README.md (%.0f s)' %
                  (st['nr'], desc, note, secs))
        else:
            st['survived'] += 1
            st['failed'] += 1
            survivors.append(m['name'])
            print('not ok %d %s # survived%s, not triaged in README.md (%.0f s)' %
                  (st['nr'], desc, note, secs))
        sys.stdout.flush()

    # Ordering mutants first against their litmus test: seconds each.
    live, secs, notes, progs = [], {}, {}, {}
    for m in sel:
        secs[m['name']] = 0.0
        notes[m['name']] = ''
        if 'litmus' not in m:
            live.append(m)
            continue
        t1 = time.time()
        os.makedirs(os.path.join(work, m['name']), exist_ok=True)
        try:
            lv = r.litmus(m, os.path.join(work, m['name']))
        except ListError as e:
            report(m, 'error', str(e), 0)
            continue
        secs[m['name']] += time.time() - t1
        if lv == 'killed':
            report(m, 'killed', 'litmus %s: Sometimes' % m['litmus'], secs[m['name']])
            continue
        notes[m['name']] = (', litmus not run: no herd7' if lv == 'no-herd7' else
                            ', litmus %s not Sometimes' % m['litmus'])
        live.append(m)
    # Then phase by phase, cheapest first, over every mutant still alive;
    # before each phase, the unmutated file must pass it.
    for phase in phases:
        if not live:
            break
        verdict, why, bsecs = r.test(base, [phase], os.path.join(work, 'base'))
        print('# unmutated file, %s phase: %s (%.0f s)' %
              (phase, 'passes' if verdict == 'survived' else 'FAILS, ' + why, bsecs))
        if verdict != 'survived':
            print('not ok %d mutants # the unmutated file fails: %s' % (st['nr'] + 1, why))
            print('0 passed, 1 failed')
            return 1
        still = []
        for m in live:
            t1 = time.time()
            d = os.path.join(work, m['name'])
            if m['name'] not in progs:
                progs[m['name']] = r.build(texts[m['name']], m['name'])
                if not progs[m['name']]:
                    report(m, 'error', 'does not compile (see %s/build.log)' % d, 0)
                    continue
            verdict, why, _ = r.test(progs[m['name']], [phase], d)
            failed_case = r.last_case
            if verdict == 'error':
                report(m, 'error', why, secs[m['name']])
                continue
            if verdict == 'killed' and failed_case and not r.base_passes(base, failed_case):
                # The case fails on the unmutated file too (a timing
                # margin under load): no kill; the mutant goes on.
                notes[m['name']] += ', %s failed on the unmutated file too' % failed_case
                verdict = 'survived'
            secs[m['name']] += time.time() - t1
            if verdict == 'killed':
                report(m, 'killed', why, secs[m['name']])
            else:
                still.append(m)
        live = still
    for m in live:
        partial = '' if (phases == ['fast', 'sweeps', 'stress'] and not sweeps) else \
            ' (partial run: %s%s)' % (','.join(phases),
                                      ', sweeps ' + ','.join(sweeps) if sweeps else '')
        report(m, 'survived', '', secs[m['name']], notes[m['name']] + partial)
    killed, survived, errors = st['killed'], st['survived'], st['errors']
    passed, failed, skipped = st['passed'], st['failed'], st['skipped']
    n = killed + survived
    score = killed / n if n else 0.0
    print('# score: %d of %d killed (%.1f%%), %d survived, %d errors, %.0f s' %
          (killed, n, 100 * score, survived, errors, time.time() - t0))
    for b in sorted(per):
        k, nb = per[b]
        print('# score of %s: %d of %d non-equivalent killed (%.1f%%)' %
              (b if b != 'own' else 'the authors\' own mutants', k, nb,
               100.0 * k / nb if nb else 0.0))
    if survivors:
        print('# survivors: %s' % ' '.join(survivors))
    ok = score >= TARGET
    if not ok:
        print('# score below %.0f%%' % (100 * TARGET))
        failed += 1
    if skipped:
        print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
    else:
        print('%d passed, %d failed' % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
