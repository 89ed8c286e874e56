#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
msg-names.py MSG TREE: every function (name followed by "()") and every
file (a path under kernel/, include/, Documentation/, lib/ or arch/) that
the commit message MSG names must exist in the patched kernel TREE: a
function defined or declared in its kernel/ or include/, a file at its
path.  Prints what it checked, one line per missing name, and exits 1 if
any is missing.
"""
import os
import re
import subprocess
import sys


def main():
    msg, tree = sys.argv[1], sys.argv[2]
    text = open(msg).read()
    funcs = sorted(set(re.findall(r'\b([A-Za-z_][A-Za-z0-9_]*)\(\)', text)))
    paths = sorted(set(p.rstrip('.,;:)') for p in re.findall(
        r'\b(?:kernel|include|Documentation|lib|arch)/[\w./-]+', text)))
    missing = []
    for p in paths:
        if not os.path.exists(os.path.join(tree, p)):
            missing.append('file %s' % p)
    for f in funcs:
        r = subprocess.run(['grep', '-rlqE', r'\b%s\s*\(' % f, '--include=*.c',
                            '--include=*.h', os.path.join(tree, 'kernel'),
                            os.path.join(tree, 'include')],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r.returncode != 0:
            missing.append('function %s()' % f)
    for m in missing:
        print('# %s: no %s in %s' % (os.path.basename(msg), m, tree))
    print('%d functions and %d files named, %d missing' %
          (len(funcs), len(paths), len(missing)))
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
