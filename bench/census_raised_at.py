"""Add `raised_at:` to signatures from the census's `where` (Python places raising an exception)."""
import collections
import glob
import re

import yaml

# framework helpers that raise for every op or layer, not only on the RNN path the census reads
GENERIC = ("op_def_library.py", "input_spec.py", "utils/argument.py", "interpreters/mlir.py")
places = collections.defaultdict(list)
for p in sorted(glob.glob('docs/census/*.yaml')):
    with open(p, encoding='utf-8') as fh:
        d = yaml.safe_load(fh)
    for e in d.get('entries') or []:
        sig, where, raised = e.get('signature'), e.get('where', ''), str(e.get('raised_as', ''))
        if not sig or 'Warning' in raised or 'log line' in raised or not raised or 'Assertion' in raised:
            continue  # an assert's place (a bare AssertionError) is shared by its function's other asserts
        m = re.match(r'^([\w./-]+\.py) ([A-Za-z_][\w.]*)(?:\s|$|;|,)', where)
        if not m:
            continue
        path, func = m.group(1), m.group(2)
        if '{' in path or path.endswith(GENERIC):
            continue
        places[sig].append(f"{path} {func.rpartition('.')[2]}")
owners = collections.defaultdict(set)  # a place -> the signatures raised there
for sig, ps in places.items():
    for p in ps:
        owners[p].add(sig)
places = {sig: [p for p in ps if len(owners[p]) == 1] for sig, ps in places.items()}
n = 0
for sig, ps in sorted(places.items()):
    f = f'signatures/{sig}.yaml'
    with open(f, encoding='utf-8') as fh:
        text = fh.read()
    y = yaml.safe_load(text)
    have = list(y.get('raised_at') or [])
    new = list(dict.fromkeys(have + ps))
    if new == have:
        continue
    line = 'raised_at: [' + ', '.join(f'"{x}"' for x in new) + ']\n'
    if have:
        text = re.sub(r'^raised_at:.*\n', line, text, flags=re.M)
    else:
        m = re.search(r'^(?:prefilter|regex_flags):', text, flags=re.M) or re.search(r'^regex:', text, flags=re.M)
        nxt = re.compile(r'^[a-z_]+:', re.M).search(text, m.end())
        text = text[:nxt.start()] + line + text[nxt.start():]
    assert yaml.safe_load(text)['raised_at'] == new
    with open(f, 'w', encoding='utf-8') as fh:
        fh.write(text)
    n += 1
    print(sig, new)
print(n)
