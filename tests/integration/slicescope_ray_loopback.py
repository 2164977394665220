# SPDX-License-Identifier: GPL-3.0-or-later
"""Keeps the integration tier's Ray on 127.0.0.1.

Ray asks "which address do others reach me at?" by routing a UDP socket towards a public address
(ray._private.services.node_ip_address_from_perspective), and replaces every loopback address it
is given (--node-ip-address, a driver's RAY_ADDRESS, ray.init's address) with the answer: the
machine's network interface. A test cluster on one machine would then talk to itself through that
interface's address. The tests must only ever use the loopback range, so when
SLICESCOPE_RAY_LOOPBACK=1 (ray-harness.sh sets it for every Ray process, and job drivers inherit
it) the answer is 127.0.0.1.

A node may have another loopback address (ray-harness.sh gives the hosts of one slice 127.0.0.2,
127.0.0.3, ..., so that their `ip` differs, as on real hosts), passed as --node-ip-address and named
in SLICESCOPE_RAY_NODE_IP for every process of that node. Ray keeps such an address (only 127.0.0.1
is "localhost" to it), but then its dashboard agent would listen on every interface (its gRPC server,
and the metrics export port): on such a node "every interface" is made to mean the node's address,
and the metrics exporter binds that address too. The answer above stays 127.0.0.1 (the GCS's).

ray-harness.sh installs this module and a .pth line that imports it into the test venv, so it
applies to every Python process Ray starts there (raylet helpers, agents, job drivers), without
importing Ray into processes that do not use it: the module only wraps the loaders of
ray._private.services (and, on a node of its own address, ray._common.network_utils and the
reporter agent).
"""

import importlib.abc
import importlib.machinery
import os
import sys

_SERVICES = "ray._private.services"
# where Ray chooses "every interface" for a node address other than 127.0.0.1
_NETWORK = "ray._common.network_utils"
_REPORTER = "ray.dashboard.modules.reporter.reporter_agent"
_NODE_IP = os.environ.get("SLICESCOPE_RAY_NODE_IP") or "127.0.0.1"


def _loopback(address=None):
    # 127.0.0.1 even on a node with another address: Ray uses the answer in place of every loopback
    # address it is given, the GCS's 127.0.0.1 among them.
    return "127.0.0.1"


def _need(module, *names):
    for name in names:
        if not hasattr(module, name):
            raise ImportError(f"slicescope_ray_loopback: {module.__name__} has no {name}; update the harness")


def _patch_network(module):
    # The dashboard agent's gRPC server (dashboard/agent.py) listens on get_all_interfaces_ip() for a
    # node address that is not 127.0.0.1; nothing on a test node may listen beyond its own address.
    _need(module, "get_all_interfaces_ip")
    module.get_all_interfaces_ip = lambda: _NODE_IP


def _patch_reporter(module):
    # The metrics export port listens on "" (every interface) for a node address that is not 127.0.0.1.
    _need(module, "is_localhost", "get_localhost_ip")
    is_localhost = module.is_localhost
    module.is_localhost = lambda host: host == _NODE_IP or is_localhost(host)
    module.get_localhost_ip = lambda: _NODE_IP


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, inner):
        self._inner = inner

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        if module.__name__ == _NETWORK:
            _patch_network(module)
            return
        if module.__name__ == _REPORTER:
            _patch_reporter(module)
            return
        if not hasattr(module, "node_ip_address_from_perspective"):
            raise ImportError("slicescope_ray_loopback: this Ray has no "
                              "services.node_ip_address_from_perspective; update the harness")
        module.node_ip_address_from_perspective = _loopback


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != _SERVICES and not (name in (_NETWORK, _REPORTER) and _NODE_IP != "127.0.0.1"):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchingLoader(spec.loader)
        return spec


if os.environ.get("SLICESCOPE_RAY_LOOPBACK") == "1" and not any(isinstance(f, _Finder) for f in sys.meta_path):
    sys.meta_path.insert(0, _Finder())
