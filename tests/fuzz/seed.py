#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Seeds the fuzz corpora from tests/data (run by tests/fuzz/run.sh): usage seed.py SOURCE_ROOT OUT.
# Writes OUT/fuzz_<name>/ for the targets whose inputs can be made from the capture files: captures
# as they are, recordings (captures one per line), relay capture and submit messages, and
# Kubernetes watch streams (the pods, nodes and RayClusters of the captures as ADDED / MODIFIED /
# DELETED / BOOKMARK / ERROR lines). Hand-written seeds live in tests/fuzz/seeds/<target>/.
import datetime
import glob
import hashlib
import json
import os
import sys

root, out = sys.argv[1], sys.argv[2]


def put(target, data):
    if isinstance(data, str):
        data = data.encode('utf-8')
    d = os.path.join(out, 'fuzz_' + target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), 'wb') as f:
        f.write(data)


def compact(value):
    return json.dumps(value, separators=(',', ':'), ensure_ascii=False)


captures = sorted(glob.glob(os.path.join(root, 'tests/data/captures/**/*.slicescope.json'), recursive=True))
parsed = []
for path in captures:
    raw = open(path, 'rb').read()
    put('capture', raw)
    put('render', raw)  # the same captures, drawn (fuzz_render)
    try:
        parsed.append(json.loads(raw))
    except ValueError:
        continue  # a deliberately broken file: a capture seed only

for i, c in enumerate(parsed):
    put('recording', compact(c) + '\n')
    if i + 1 < len(parsed):
        put('recording', compact(c) + '\n\n' + compact(parsed[i + 1]) + '\n')
    put('relay', '{"type":"capture","seq":%d,"capture":%s}' % (i + 1, compact(c)))

    kube = c.get('kubernetes') or {}
    events = []
    for key in ('pods', 'nodes', 'rayclusters'):
        body = kube.get(key)
        if not isinstance(body, dict):
            continue
        for item in (body.get('items') or [])[:6]:
            events.append({'type': 'ADDED', 'object': item})
            events.append({'type': 'MODIFIED', 'object': item})
        rv = (body.get('metadata') or {}).get('resourceVersion', '1')
        events.append({'type': 'BOOKMARK', 'object': {'kind': 'Pod', 'metadata': {'resourceVersion': rv}}})
        if body.get('items'):
            events.append({'type': 'DELETED', 'object': body['items'][0]})
    if events:
        lines = [compact(e) for e in events]
        put('kubewatch', '\n'.join(lines) + '\n')
        put('kubewatch', '\n'.join(lines[:3]))  # the stream ends inside its last event
        put('kubewatch', '\n'.join(lines[:2] + [compact({
            'type': 'ERROR', 'object': {'kind': 'Status', 'apiVersion': 'v1', 'status': 'Failure',
                                        'message': 'too old resource version', 'reason': 'Expired', 'code': 410}})]) + '\n')

# The fleet (issue 16): each capture with both views as a context with one RayCluster's Ray view,
# and two of them as a fleet whose second context and view are down.
for i, c in enumerate(parsed):
    if not (isinstance(c.get('ray'), dict) and isinstance(c.get('kubernetes'), dict)):
        continue
    view = dict(c['ray'], cluster='ray/tpu-cluster')
    context = {'capturedAt': c.get('capturedAt', '2026-11-29T18:00:00Z'), 'kubernetes': c['kubernetes'], 'rayClusters': [view]}
    down = {'kubernetes': dict(c['kubernetes'], context='eu-west', error='connection refused'),
            'rayClusters': [{'cluster': 'ray/tpu-cluster', 'error': 'HTTP 503 from the service proxy'}]}
    one = dict(context, format='slicescope-capture/1')
    fleet = {'format': 'slicescope-capture/1', 'capturedAt': context['capturedAt'], 'fleet': [context, down]}
    for target in ('capture',):  # not render: its replay is slow (a second a seed), and CI replays every seed
        put(target, compact(one))
        put(target, compact(fleet))
    put('recording', compact(fleet) + '\n' + compact(one) + '\n')

# Chip activity (issue 15): the harness's node summary and Prometheus answers (tests/data/activity)
# as one capture, its node list made from the summary's raylets, with the queries of
# model/activity.h (promql::kRayTpu and the 600 s window): a new summary and window answer, the
# two parsed at once (SideTask). The capture files above carry no activity body.
activity = os.path.join(root, 'tests/data/activity')
summary = json.load(open(os.path.join(activity, 'nodes-summary.json')))
duty = json.load(open(os.path.join(activity, 'prom-duty-cycle.json')))
entries = summary['data']['summary']
items = []
for e in entries:
    r = e.get('raylet') or {}
    resources = {'CPU': 1}
    if 'TPU' in (r.get('resourcesTotal') or {}):
        resources['TPU'] = r['resourcesTotal']['TPU']
    items.append({'node_id': r.get('nodeId'), 'node_ip': r.get('nodeManagerAddress'), 'is_head_node': r.get('isHeadNode'),
                  'state': r.get('state'), 'resources_total': resources, 'labels': r.get('labels') or {}})
newest = max(e.get('now', 0) for e in entries)
window = {'status': 'success', 'data': {'resultType': 'vector', 'result': [
    {'metric': {k: v for k, v in s['metric'].items() if k in ('instance', 'ip', 'TpuIndex')}, 'value': s['value']}
    for s in duty['data']['result']]}}
put('capture', compact({
    'format': 'slicescope-capture/1',
    'capturedAt': datetime.datetime.fromtimestamp(int(newest) + 5, datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'),
    'ray': {'nodes': {'result': True, 'data': {'result': {'total': len(items), 'num_after_truncation': len(items),
                                                          'num_filtered': len(items), 'result': items}}},
            'node_summary': summary},
    'prometheus': {'url': 'http://127.0.0.1:9090', 'answers': [
        {'query': 'max by (__name__, instance, ip, TpuIndex) ({__name__=~"ray_tpu_(duty_cycle|tensorcore_utilization|'
                  'memory_bandwidth_utilization|memory_used|memory_total)"})', 'body': duty},
        {'query': 'max by (instance, ip, TpuIndex) (max_over_time(ray_tpu_duty_cycle[600s]) and ray_tpu_duty_cycle offset 600s)',
         'body': window}]}}))

put('relay', compact({'type': 'submit', 'id': 1, 'request': {
    'accelerator': 'v6e', 'topology': '4x4', 'numSlices': 2, 'name': 'train', 'detached': True,
    'cpuPerBundle': 1, 'tpuPerBundle': 4, 'chipsPerVm': 4, 'strategy': 'SPREAD', 'timeoutSeconds': 20}}))
put('relay', compact({'type': 'hello', 'protocol': 'slicescope-relay/1', 'source': 'ray http://127.0.0.1:8265'}))
put('relay', compact({'type': 'error', 'message': 'no such placement group'}))
