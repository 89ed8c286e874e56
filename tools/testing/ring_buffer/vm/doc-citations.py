#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
doc-citations.py REPO TREE: Documentation/trace/ring-buffer.txt of the
repository REPO and the comments of our source files agree with each other
and with the code.  It fails when

  (a) a function the document cites ("name()") is in none of our files
      (kernel/trace/ring_buffer.c, ring_buffer_range.c,
      ring_buffer_map.c, ring_buffer_internal.h, ring_buffer_selftest.c,
      include/linux/ring_buffer.h: their code, comments left out) nor
      anywhere in the kernel TREE (a call, definition or declaration in
      a .c or .h file);
  (b) a litmus test the document names (NAME.litmus) is not in
      tools/testing/ring_buffer/litmus/;
  (c) the document refers to a source line by number ("L123",
      "L123-130", "line 123", "lines 12-20");
  (d) a comment of those files cites a section ("section 8b",
      "Documentation 10", "section 5, step 3") or a barrier pair
      ("pair 20") that the document does not have.  Sections are the
      numbered headings underlined with dashes, steps the numbered items
      of a section, pairs the numbered items after "Barrier pairs.".

Prints one line per problem, then a summary line; exits 1 on any problem.
"""
import os
import re
import subprocess
import sys

DOC = 'Documentation/trace/ring-buffer.txt'
LITMUS = 'tools/testing/ring_buffer/litmus'
OURS = ['kernel/trace/ring_buffer.c', 'kernel/trace/ring_buffer_range.c',
        'kernel/trace/ring_buffer_map.c',
        'kernel/trace/ring_buffer_internal.h',
        'kernel/trace/ring_buffer_selftest.c', 'include/linux/ring_buffer.h']

FUNC_RE = re.compile(r'(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)\(\)')
LITMUS_RE = re.compile(r'[A-Za-z0-9_.+-]+\.litmus\b')
LINE_RE = re.compile(r'(?<![A-Za-z0-9_])L[0-9]+\b|\blines?\s+[0-9]+',
                     re.IGNORECASE)
# "section 8b", "sections 4 and 7", "Documentation section 5, step 4",
# "Documentation 10", "section 7 of the Documentation"
SECTION_RE = re.compile(
    r'\b(?:sections?|Documentation)\s+([0-9]+[a-z]?)\b'
    r'(?:,?\s+step\s+([0-9]+))?', re.IGNORECASE)
PAIR_RE = re.compile(r'\bpairs?\s+([0-9]+)\b', re.IGNORECASE)


def split_comments(text):
    """Return (code, comments) of C source @text, strings blanked."""
    code, comments = [], []
    tok = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"'
                     r"|'(?:\\.|[^'\\\n])*'", re.DOTALL)
    pos = 0
    for m in tok.finditer(text):
        code.append(text[pos:m.start()])
        t = m.group(0)
        if t.startswith('/'):
            comments.append(t)
            code.append(' ')
        else:
            code.append('""')
        pos = m.end()
    code.append(text[pos:])
    return ''.join(code), comments


def doc_structure(lines):
    """Sections {num: title}, steps {section: set}, pairs {num: title}."""
    sections, steps, pairs = {}, {}, {}
    cur = None
    in_pairs = False
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ''
        m = re.match(r'^([0-9]+[a-z]?)\.\s+(\S.*)$', line)
        if m and re.match(r'^-{3,}\s*$', nxt):
            cur = m.group(1)
            sections[cur] = m.group(2).strip()
            steps.setdefault(cur, set())
            continue
        if re.match(r'^-{3,}\s*$', nxt) and line.strip():
            cur = None              # an unnumbered heading
            continue
        if line.startswith('Barrier pairs.'):
            in_pairs = True
            continue
        if in_pairs:
            m = re.match(r'^\s?([0-9]+)\.\s+(\S.*)$', line)
            if m:
                pairs[m.group(1)] = m.group(2).strip()
            continue
        m = re.match(r'^\s+([0-9]+)\.\s', line)
        if m and cur is not None:
            steps[cur].add(m.group(1))
    return sections, steps, pairs


def in_tree(tree, name):
    """Is @name called, defined or declared in a .c or .h file of @tree?"""
    # Files holding the name at all (a fixed string: fast), then the
    # pattern in those.
    cmd = ['grep', '-rlF', name, '--include=*.c', '--include=*.h', '.']
    if os.path.exists(os.path.join(tree, '.git')):
        # The tracked files: a prepared tree commits what it applies.
        cmd = ['git', 'grep', '-l', '-F', name, '--', '*.c', '*.h']
    r = subprocess.run(cmd, cwd=tree, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True)
    call = re.compile(r'(?<![A-Za-z0-9_])%s\s*\(' % re.escape(name))
    for f in r.stdout.splitlines():
        try:
            with open(os.path.join(tree, f), errors='replace') as fh:
                if call.search(fh.read()):
                    return True
        except OSError:
            continue
    return False


def main():
    if len(sys.argv) != 3:
        print('usage: doc-citations.py REPO TREE', file=sys.stderr)
        return 2
    repo, tree = sys.argv[1], sys.argv[2]
    doc = open(os.path.join(repo, DOC)).read()
    lines = doc.split('\n')
    bad = []

    code, comments = {}, {}
    for f in OURS:
        path = os.path.join(repo, f)
        if os.path.exists(path):
            code[f], comments[f] = split_comments(open(path).read())

    # (a) functions
    funcs = sorted(set(FUNC_RE.findall(doc)))
    from_tree = 0
    for fn in funcs:
        call = re.compile(r'(?<![A-Za-z0-9_])%s\s*\(' % re.escape(fn))
        if any(call.search(c) for c in code.values()):
            continue
        if os.path.isdir(tree) and in_tree(tree, fn):
            from_tree += 1
            continue
        bad.append('function %s(): in none of our files nor in %s'
                   % (fn, tree))

    # (b) litmus tests
    tests = sorted(set(LITMUS_RE.findall(doc)))
    for t in tests:
        if not os.path.isfile(os.path.join(repo, LITMUS, t)):
            bad.append('litmus test %s: not in %s' % (t, LITMUS))

    # (c) line numbers
    for i, line in enumerate(lines, 1):
        for m in LINE_RE.finditer(line):
            bad.append('%s:%d: line number reference "%s"'
                       % (DOC, i, m.group(0)))

    # (d) sections, steps and pairs cited from comments
    sections, steps, pairs = doc_structure(lines)
    ncite = 0
    for f, cs in comments.items():
        for c in cs:
            flat = ' '.join(c.split())
            for m in SECTION_RE.finditer(flat):
                ncite += 1
                sec, step = m.group(1), m.group(2)
                if sec not in sections:
                    bad.append('%s: comment cites section %s, not in %s'
                               % (f, sec, DOC))
                elif step and step not in steps[sec]:
                    bad.append('%s: comment cites section %s, step %s: '
                               'no such step' % (f, sec, step))
            for m in PAIR_RE.finditer(flat):
                ncite += 1
                if m.group(1) not in pairs:
                    bad.append('%s: comment cites pair %s, not in the '
                               'barrier pairs of %s' % (f, m.group(1), DOC))

    for b in bad:
        print('# %s' % b)
    print('%d functions cited (%d found only in the kernel tree), '
          '%d litmus tests, %d sections and %d pairs in the document, '
          '%d citations in comments; %d problems'
          % (len(funcs), from_tree, len(tests), len(sections), len(pairs),
             ncite, len(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
