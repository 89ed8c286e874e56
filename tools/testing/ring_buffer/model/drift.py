#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""drift.py: does ring_buffer.pml still cite the accesses of ring_buffer.c?

The C side is kernel/trace/ring_buffer.c with the files compiled with it,
ring_buffer_internal.h (helpers of the write and read paths, inline) and
ring_buffer_range.c (persistent buffers) and ring_buffer_map.c (user-space
mappings): their functions are read as one
source, as the harness compiles them.

Every modelled step of ring_buffer.pml names the C function it stands for
and the shared-state access it performs, in backquotes:

    pushing++;	/* rb_push() `local_inc(&cb->pushing)` */

An access is keyed by its text, never by its line: the operation and the
location it touches (READ_ONCE(cb->top), local_add(&cb->overrun),
smp_wmb()), or for a plain access of a field the model tracks the
expression, with " =" when it is stored (cb->rd.off =).  The n-th access
with the same key in one function is key#n (n >= 2).

A function is modelled when the model cites it at least once.  The check
fails, naming the access, when
  - a modelled function of ring_buffer.c has an access the model does not
    cite (a step that is missing, or a change the model has not followed),
  - the model cites an access that its function no longer has, or a
    function none of the sources has any more.
Accesses of modelled functions that the model folds into another step or
leaves out are cited too, in the block "Accesses without a step of their
own" of ring_buffer.pml, each with the reason.

The tracked fields are the ones the model's state declarations name in
their comments (cb->write, sb->tag, rd.seq, ...).

Usage: drift.py [--c FILE...] [--pml FILE] [--list FUNC...]
Output: KTAP, one line for each modelled function (and one for the
citations of functions that are gone); exit status 1 on any drift.
"""
import argparse
import collections
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, '..', '..', '..', '..'))

# Calls that access shared state: the marked accesses, atomics, local_t,
# cmpxchg and the barriers.
ACCESS = re.compile(
    r'\b(READ_ONCE|WRITE_ONCE|smp_load_acquire|smp_store_release|'
    r'smp_mb|smp_rmb|smp_wmb|smp_mb__\w+|barrier|'
    r'(?:try_)?cmpxchg\w*|xchg\w*|'
    r'atomic(?:64|_long)?_\w+|local64_\w+|local_(?!irq|bh)\w+)\s*\(')
# Read-modify-write operations whose location is the second argument.
SECOND = re.compile(r'_(add|sub|and|or|xor|andnot)(_return\w*|_and_test)?$')
STORE = re.compile(r'\s*(=(?!=)|\+=|-=|\|=|&=|\+\+|--)')


def strip_comments(text):
    """Comments and strings become blanks (newlines kept)."""
    def blank(m):
        return re.sub(r'[^\n]', ' ', m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', blank, text,
                  flags=re.S)


def functions(text):
    """{name: body} of every top-level function definition."""
    code = strip_comments(text)
    out = {}
    start = 0
    for m in re.finditer(r'^\{\n(.*?)^\}', code, flags=re.S | re.M):
        head = code[start:m.start()]
        start = m.end()
        # The declaration after the last top-level item before the body.
        head = re.split(r'[;}]\s*\n', head)[-1]
        head = re.sub(r'^\s*#[^\n]*', '', head, flags=re.M)
        n = re.search(r'\b(\w+)\s*\(', head)
        if n:
            out[n.group(1)] = m.group(1)
    return out


def args_of(body, i):
    """Arguments of the call whose '(' is at body[i], and the end index."""
    depth = 0
    args = []
    cur = i + 1
    j = i
    while j < len(body):
        c = body[j]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                args.append(body[cur:j])
                return [a.strip() for a in args], j + 1
        elif c == ',' and depth == 1:
            args.append(body[cur:j])
            cur = j + 1
        j += 1
    return args, len(body)


def norm(s):
    return re.sub(r'\s+', '', s)


def accesses(body, fields):
    """Keys of the accesses of one function body, in order."""
    found = []		# (position, key)
    spans = []		# text of the locations already keyed
    for m in ACCESS.finditer(body):
        op = m.group(1)
        args, _ = args_of(body, m.end() - 1)
        args = [a for a in args if a]
        if not args:
            found.append((m.start(), op + '()'))
            continue
        target = args[1] if SECOND.search(op) and len(args) > 1 else args[0]
        # The location's own span: a plain access inside it is this one.
        off = body.find(target, m.end() - 1)
        spans.append((off, off + len(target)))
        found.append((m.start(), '%s(%s)' % (op, norm(target))))
    if fields:
        plain = re.compile(r'(?<![&\w>.])((?:\w+(?:->|\.))+(?:%s))\b(?!\s*(?:->|\.|\())'
                           % '|'.join(sorted(fields, key=len, reverse=True)))
        for m in plain.finditer(body):
            if any(a <= m.start() < b for a, b in spans):
                continue
            expr = m.group(1)
            if not tracked(expr, fields):
                continue
            key = expr + (' =' if STORE.match(body, m.end()) else '')
            found.append((m.start(), key))
    found.sort()
    seen = collections.Counter()
    keys = []
    for _, k in found:
        seen[k] += 1
        keys.append(k if seen[k] == 1 else '%s#%d' % (k, seen[k]))
    return keys


def tracked(expr, fields):
    """expr ends in a tracked field reached the way the model names it."""
    for f, bases in fields.items():
        for base in bases:
            if expr == base + f or expr.endswith('>' + base + f) or \
               expr.endswith('.' + base + f):
                return True
            if base in ('->',) and expr.endswith('->' + f):
                return True
    return False


def model_fields(pml):
    """Tracked fields, from the comments of the model's declarations."""
    fields = collections.defaultdict(set)
    for m in re.finditer(r'^(?:byte|bit|short|int|bool)\b[^\n]*?/\*([^\n]*)\*/',
                         pml, flags=re.M):
        for f in re.finditer(r'\b(cb|sb|page|rd)(->|\.)(\w+)', m.group(1)):
            base, sep, name = f.groups()
            fields[name].add('rd.' if base == 'rd' else sep)
    return fields


def citations(pml):
    """[(function, key, line)] of the model; key None for a comment that
    starts with the function's name (a step of it, citing no access).
    In a comment, every `access` belongs to the last fn() named before it
    outside backquotes."""
    out = []
    for m in re.finditer(r'/\*.*?\*/', pml, flags=re.S):
        text = m.group(0)
        s = re.match(r'/\*\s*(\w+)\(\)', text)
        if s:
            out.append((s.group(1), None, pml.count('\n', 0, m.start()) + 1))
        fn = None
        for t in re.finditer(r'`([^`]*)`|\b(\w+)\(\)', text):
            if t.group(2):
                fn = t.group(2)
            elif fn:
                line = pml.count('\n', 0, m.start() + t.start()) + 1
                out.append((fn, norm_key(t.group(1)), line))
    return out


def norm_key(k):
    k = k.strip()
    store = k.endswith(' =') or re.search(r' =(#\d+)?$', k)
    k = norm(k)
    if store:
        k = re.sub(r'=(#\d+)?$', r' =\1', k)
    return k


def check(csrc, pml):
    """Compare the two sides: three lists of differences, one message each:
    accesses without a citation, citations without their access,
    citations of functions that are gone."""
    funcs = functions(csrc)
    fields = model_fields(pml)
    by_fn = collections.defaultdict(list)
    for fn, key, line in citations(pml):
        by_fn[fn].append((key, line))
    # What a modelled function calls is modelled too, down the call tree.
    work = [fn for fn in by_fn if fn in funcs]
    while work:
        fn = work.pop()
        for m in re.finditer(r'\b(\w+)\s*\(', funcs[fn]):
            c = m.group(1)
            if c in funcs and c not in by_fn:
                by_fn[c] = []
                work.append(c)
    uncited, stale, gone = [], [], []
    nacc = 0
    for fn in sorted(by_fn):
        if fn not in funcs:
            lines = sorted({line for _, line in by_fn[fn]})
            gone.append('ring_buffer.pml:%s cite%s %s(), none of the sources has %s()'
                        % (','.join(map(str, lines)), '' if len(lines) > 1 else 's',
                           fn, fn))
            continue
        have = accesses(funcs[fn], fields)
        nacc += len(have)
        cited = {k for k, _ in by_fn[fn] if k}
        for k in have:
            if k not in cited:
                uncited.append('%s() `%s` has no model step' % (fn, k))
        hs = set(have)
        for k, line in by_fn[fn]:
            if k and k not in hs:
                stale.append('ring_buffer.pml:%d cites %s() `%s`, not an access of %s()'
                             % (line, fn, k, fn))
    nfn = len([fn for fn in by_fn if fn in funcs])
    return uncited, stale, gone, nfn, nacc


def ktap_line(n, ok, name, diag):
    print('%s %d %s%s' % ('ok' if ok else 'not ok', n, name,
                          ' # ' + diag if diag else ''))


def selftest(csrc, pml, tmp):
    """Scratch copies with one drift each: the check must name it.
    [(name, passed, what the check said)]."""
    def rb_push_add(c):
        return c.replace('\tlocal_inc(&cb->pushing);\n',
                         '\tlocal_inc(&cb->pushing);\n\tlocal_inc(&cb->overrun);\n', 1)

    def rb_take_plain(c):
        return c.replace('\tcb->rd.own = true;\n',
                         '\tcb->rd.own = true;\n\tcb->rd.off = 0;\n', 1)

    def rb_mark_drop(c):
        i = c.index('static int rb_mark(')
        j = c.index('\tsmp_wmb();\n', i)
        return c[:j] + c[j + len('\tsmp_wmb();\n'):]

    def rename(c):
        return re.sub(r'\brb_rd_sync\b', 'rb_rd_catch_up', c)

    def shift(c):
        # Lines move, text stays: no difference.
        return '/*\n' + ' * moved\n' * 200 + ' */\n' + c

    cases = [
        ('an access added to rb_push()', rb_push_add, None,
         ['rb_push() `local_inc(&cb->overrun)` has no model step']),
        ('a plain store of a tracked field added to rb_take()', rb_take_plain, None,
         ['rb_take() `cb->rd.off =` has no model step']),
        ('the barrier after the tag cmpxchg dropped from rb_mark()', rb_mark_drop, None,
         ['cites rb_mark() `smp_wmb()`, not an access of rb_mark()']),
        # The new name is called from rb_rd_look(): its accesses have
        # no step under that name.
        ('rb_rd_sync() renamed', rename, None,
         ['none of the sources has rb_rd_sync()', 'rb_rd_catch_up() `']),
        ('a citation of the model changed', None,
         lambda m: m.replace('rb_push() `local_inc(&cb->pushing)`',
                             'rb_push() `local_inc(&cb->pushed)`', 1),
         ['cites rb_push() `local_inc(&cb->pushed)`, not an access of rb_push()',
          'rb_push() `local_inc(&cb->pushing)` has no model step']),
        ('200 lines more above every function', shift, None, []),
    ]
    out = []
    for name, cedit, pedit, want in cases:
        c2 = cedit(csrc) if cedit else csrc
        p2 = pedit(pml) if pedit else pml
        if c2 == csrc and p2 == pml:
            out.append((name, False, 'the edit did not apply'))
            continue
        # The scratch copies are kept for a look by hand.
        slug = re.sub(r'\W+', '-', name).strip('-')
        with open(os.path.join(tmp, slug + '.c'), 'w') as f:
            f.write(c2)
        with open(os.path.join(tmp, slug + '.pml'), 'w') as f:
            f.write(p2)
        uncited, stale, gone, _, _ = check(c2, p2)
        said = uncited + stale + gone
        # Each expected message is there, and nothing else.
        ok = all(any(w in d for d in said) for w in want) and \
            all(any(w in d for w in want) for d in said)
        out.append((name, ok, '; '.join(said) or 'no difference'))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--c', nargs='+', default=[
        os.path.join(REPO, 'kernel/trace', f) for f in
        ('ring_buffer.c', 'ring_buffer_internal.h', 'ring_buffer_range.c',
         'ring_buffer_map.c')])
    ap.add_argument('--pml', default=os.path.join(HERE, 'ring_buffer.pml'))
    ap.add_argument('--list', nargs='*', help='print the keys of these functions')
    ap.add_argument('--self-test', metavar='DIR',
                    help='also check the check on scratch copies written to DIR')
    a = ap.parse_args()
    csrc = ''
    for path in a.c:
        with open(path) as f:
            csrc += f.read() + '\n'

    with open(a.pml) as f:
        pml = f.read()
    if a.list is not None:
        funcs = functions(csrc)
        fields = model_fields(pml)
        for fn in a.list or sorted(funcs):
            for k in accesses(funcs.get(fn, ''), fields):
                print('%s() `%s`' % (fn, k))
        return 0
    uncited, stale, gone, nfn, nacc = check(csrc, pml)
    tests = []
    if a.self_test:
        os.makedirs(a.self_test, exist_ok=True)
        tests = selftest(csrc, pml, a.self_test)
    print('KTAP version 1')
    print('1..%d' % (3 + len(tests)))
    for d in uncited + stale + gone:
        print('# ' + d)
    ktap_line(1, not uncited,
              'model drift: every shared-state access of a modelled function has a model step',
              '; '.join(uncited) if uncited else
              '%d accesses in %d functions' % (nacc, nfn))
    ktap_line(2, not stale,
              'model drift: every access the model cites is still in its function',
              '; '.join(stale))
    ktap_line(3, not gone, 'model drift: every function the model cites exists',
              '; '.join(gone))
    n = 3
    for name, ok, said in tests:
        n += 1
        ktap_line(n, ok, 'model drift check finds a drift: ' + name, said)
    bad = uncited or stale or gone or not all(ok for _, ok, _ in tests)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
