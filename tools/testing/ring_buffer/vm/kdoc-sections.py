#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kdoc-sections.py FILE...: the kernel-doc of every exported function.

For each EXPORT_SYMBOL() / EXPORT_SYMBOL_GPL() in the given C files, find the
function's definition and the kernel-doc comment ("/** ... */") right above
it, and check that the comment
  - exists and documents that function ("name - ..." on its first line),
  - has a "Context:" section,
  - has a "Return:" section when the function returns a value, and none
    when it returns void.
Prints one line per finding ("FILE:LINE: name: what is wrong") and a last
line "N exported functions, M findings"; exits 1 when M > 0.
"""
import re
import sys

EXPORT = re.compile(r'^\s*EXPORT_SYMBOL(?:_GPL)?\((\w+)\);')
# Words before the function name that say nothing about the return type.
NOT_TYPE = {'static', 'inline', '__always_inline', 'notrace', 'noinline',
            '__must_check', '__init', '__cold', '__hot', 'extern'}


def definition(lines, name):
    """Index of the line where NAME's definition starts, or None.

    A definition is a line at column 0 that contains "name(" and, from
    there up to the first "{" or ";", ends in "{" (not a prototype).
    """
    call = re.compile(r'(^|[\s*])' + re.escape(name) + r'\(')
    for i, line in enumerate(lines):
        if not line or line[0] in ' \t#/*' or not call.search(line):
            continue
        rest = ''.join(lines[i:i + 12])
        cut = min((p for p in (rest.find('{'), rest.find(';')) if p >= 0),
                  default=-1)
        if cut >= 0 and rest[cut] == '{':
            return i
    return None


def check(path):
    """The findings for one file, and how many exports it has."""
    lines = open(path, encoding='utf-8').read().split('\n')
    found = []
    exports = [(i, m.group(1)) for i, l in enumerate(lines)
               for m in [EXPORT.match(l)] if m]
    for where, name in exports:
        here = '%s:%d: %s' % (path, where + 1, name)
        start = definition(lines, name)
        if start is None:
            found.append(here + ': no function definition found')
            continue
        # The return type: the declaration lines above the name's line
        # (e.g. "struct ring_buffer_event *" on its own line) plus what
        # precedes the name on its own line.
        top = start
        while top > 0 and lines[top - 1].strip() and \
                not lines[top - 1].strip().endswith('*/') and \
                not lines[top - 1].lstrip().startswith(('#', '}')):
            top -= 1
        head = ' '.join(lines[top:start] +
                        [lines[start].split(name + '(')[0]])
        words = [w for w in re.findall(r'\w+|\*', head) if w not in NOT_TYPE]
        returns_void = words == ['void']
        # The kernel-doc comment must end on the line right above.
        if top == 0 or lines[top - 1].strip() != '*/':
            found.append(here + ': no kernel-doc comment above the definition')
            continue
        end = top - 1
        begin = end
        while begin >= 0 and not lines[begin].startswith('/**'):
            begin -= 1
        if begin < 0:
            found.append(here + ': no "/**" opening the comment')
            continue
        doc = [re.sub(r'^\s*\*\s?', '', l) for l in lines[begin + 1:end]]
        if not doc or not re.match(re.escape(name) + r'(\(\))?\s+-\s', doc[0]):
            found.append(here + ': kernel-doc comment does not start with "%s - "'
                         % name)
        has_context = any(re.match(r'Context:', l) for l in doc)
        has_return = any(re.match(r'Returns?:', l) for l in doc)
        if not has_context:
            found.append(here + ': no "Context:" section')
        if returns_void and has_return:
            found.append(here + ': "Return:" section on a void function')
        if not returns_void and not has_return:
            found.append(here + ': no "Return:" section (returns %s)'
                         % ' '.join(words))
    return found, len(exports)


def main():
    if len(sys.argv) < 2:
        sys.exit('usage: kdoc-sections.py FILE...')
    findings, total = [], 0
    for path in sys.argv[1:]:
        f, n = check(path)
        findings += f
        total += n
    for f in findings:
        print(f)
    print('%d exported functions, %d findings' % (total, len(findings)))
    sys.exit(1 if findings else 0)


if __name__ == '__main__':
    main()
