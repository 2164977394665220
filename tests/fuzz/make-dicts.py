#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes tests/fuzz/dict/*.dict: the string literals the readers compare against (JSON keys, label
# and annotation names, enum values, kubeconfig keys) taken from the source, the keys and label
# names of tests/data/captures, and a little syntax per format. Run again after a reader learns new
# keys: tests/fuzz/make-dicts.py (from the repository root).
import glob
import re

SOURCE_LITERAL = re.compile(r'"([A-Za-z0-9_./\-]{2,60})"')


def literals(files):
    out = set()
    for f in files:
        for m in SOURCE_LITERAL.finditer(open(f, encoding='utf-8').read()):
            v = m.group(1)
            if not v.endswith(('.h', '.jsonl', '.cpp')) and 'XXXX' not in v:
                out.add(v)
    return out


def capture_data_words():
    out = set()
    for f in glob.glob('tests/data/captures/**/*.json', recursive=True):
        t = open(f, encoding='utf-8').read()
        out.update(m.group(1) for m in re.finditer(r'"([A-Za-z0-9_./\-]{2,60})"\s*:', t))
        out.update(m.group(1) for m in re.finditer(
            r'"((?:ray\.io|cloud\.google\.com|google\.com|app\.kubernetes\.io)/[A-Za-z0-9_.\-]+)"', t))
    return out


def encode(word):
    # libFuzzer's dictionary syntax: "..." with \\, \" and \xAB escapes only.
    out = []
    for b in (word if isinstance(word, bytes) else word.encode('utf-8')):
        c = chr(b)
        if c in '\\"':
            out.append('\\' + c)
        elif 32 <= b < 127:
            out.append(c)
        else:
            out.append('\\x%02X' % b)
    return '"' + ''.join(out) + '"'


def write(name, words, extra=()):
    with open(f'tests/fuzz/dict/{name}.dict', 'w', encoding='utf-8') as o:
        o.write(f'# libFuzzer dictionary for fuzz_{name}, written by tests/fuzz/make-dicts.py\n')
        seen = set()
        for w in list(extra) + sorted(words):
            if w not in seen:
                seen.add(w)
                o.write(encode(w) + '\n')


JSON = ['{', '}', '[', ']', ':', ',', '"', 'null', 'true', 'false', '-1', '0', '1e308', '2147483647',
        '-2147483648', '9223372036854775807', '1e30', '-1e30', '0.5', '\\u0000', '\\n', '\\ud800']
capture = literals(['model/snapshotbuilder.cpp', 'model/snapshotread_p.h', 'model/snapshotreaders.cpp',
                    'model/snapshotjoin.cpp', 'model/jsonread_p.h', 'backend/capturefile.cpp',
                    'model/tpu.cpp']) | capture_data_words()
write('capture', capture, JSON + ['{"format":"slicescope-capture/1"'])
write('recording', capture, JSON + ['{"format":"slicescope-capture/1"', '\n'])
write('render', capture, JSON + ['{"format":"slicescope-capture/1"'])
write('relay', capture | literals(['backend/relayprotocol.cpp']) | {
    'hello', 'capture', 'actions', 'sourceFailed', 'progress', 'jobSubmitted', 'finished', 'conflict',
    'error', 'submit', 'release', 'scale', 'type', 'seq', 'request', 'accelerator', 'topology',
    'numSlices', 'detached', 'cpuPerBundle', 'tpuPerBundle', 'chipsPerVm', 'strategy',
    'timeoutSeconds'}, JSON + ['{"type":"capture","seq":1,"capture":', '{"type":"submit","request":'])
write('kubewatch', capture | {'type', 'object', 'ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR',
                              'resourceVersion', 'code', 'Status', 'Expired'},
      JSON + ['\n', '{"type":"ADDED","object":{"metadata":{"name":"a","namespace":"n","resourceVersion":"1"}}}'])
write('kubeconfig', literals(['backend/kubeconfig.cpp']) | {
    'apiVersion', 'kind', 'Config', 'clusters', 'cluster', 'contexts', 'context', 'users', 'user',
    'current-context', 'server', 'certificate-authority', 'certificate-authority-data',
    'insecure-skip-tls-verify', 'tls-server-name', 'proxy-url', 'namespace', 'token', 'tokenFile',
    'client-certificate', 'client-certificate-data', 'client-key', 'client-key-data', 'exec',
    'command', 'args', 'env', 'name', 'value', 'provideClusterInfo', 'installHint', 'interactiveMode',
    'auth-provider', 'client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1',
    '-----BEGIN CERTIFICATE-----', '-----END CERTIFICATE-----', '-----BEGIN EC PRIVATE KEY-----',
    '-----BEGIN PRIVATE KEY-----', '#---next-file', 'https://', 'socks5://'},
      [': ', '- ', '\n  ', '\n- ', '"', "'", '&a', '*a', '<<: *a', '!!binary', '{', '}', '[', ']', '|',
       '>', '---', '...', '\t', '\n'])
write('parsers', literals(['model/tpu.cpp', 'backend/slicepgjob.cpp']),
      ['x', 'X', '\n', '-', '0', '1', '2', '4', '8', '16', '4096', '2147483647', '-1', '1e9', ' '])
write('logtail', set(), ['\x00', '\x01', '\x02', '\n', '\r\n', '\n\n', '€', '€'.encode()[:2]])
