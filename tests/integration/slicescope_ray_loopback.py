# SPDX-License-Identifier: GPL-3.0-or-later
"""Keeps the integration tier's Ray on 127.0.0.1.

Ray asks "which address do others reach me at?" by routing a UDP socket towards a public address
(ray._private.services.node_ip_address_from_perspective), and replaces every loopback address it
is given (--node-ip-address, a driver's RAY_ADDRESS, ray.init's address) with the answer: the
machine's network interface. A test cluster on one machine would then talk to itself through that
interface's address. The tests must only ever use the loopback range, so when
SLICESCOPE_RAY_LOOPBACK=1 (ray-harness.sh sets it for every Ray process, and job drivers inherit
it) the answer is 127.0.0.1.

ray-harness.sh installs this module and a .pth line that imports it into the test venv, so it
applies to every Python process Ray starts there (raylet helpers, agents, job drivers), without
importing Ray into processes that do not use it: the module only wraps the loader of
ray._private.services.
"""

import importlib.abc
import importlib.machinery
import os
import sys

_TARGET = "ray._private.services"


def _loopback(address=None):
    return "127.0.0.1"


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, inner):
        self._inner = inner

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        if not hasattr(module, "node_ip_address_from_perspective"):
            raise ImportError("slicescope_ray_loopback: this Ray has no "
                              "services.node_ip_address_from_perspective; update the harness")
        module.node_ip_address_from_perspective = _loopback


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != _TARGET:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchingLoader(spec.loader)
        return spec


if os.environ.get("SLICESCOPE_RAY_LOOPBACK") == "1" and not any(isinstance(f, _Finder) for f in sys.meta_path):
    sys.meta_path.insert(0, _Finder())
