"""Which methods of the official SDK call a route this service serves.

Read from the SDK itself (the path each method requests) and from this service's OpenAPI
document, so a route added here later is demanded of the suite without editing a list.
"""

import inspect
import json
import re
import urllib.request

import roark_analytics.resources as resources_pkg

_CALL = re.compile(
    r"\n    def (\w+)\(\s*self,.*?\n        return self\._(get|post|put|patch|delete)\(\s*(f?\"[^\"]*\")",
    re.S,
)


def sdk_methods():
    """Every typed method of the synchronous client: {(resource, method): (HTTP method, path)}."""
    found = {}
    for name in sorted(dir(resources_pkg)):
        if not name.endswith("Resource") or name.startswith("Async") or "With" in name:
            continue
        cls = getattr(resources_pkg, name)
        module = inspect.getmodule(cls)
        source = inspect.getsource(cls)
        resource = module.__name__.rsplit(".", 1)[-1]
        for match in _CALL.finditer(source):
            method, verb, path = match.group(1), match.group(2).upper(), match.group(3)
            path = path.lstrip("f").strip('"')
            found[(resource, method)] = (verb, _normal(path))
    return found


def served_routes(base_url):
    """{(HTTP method, path)} of this service, from its OpenAPI document."""
    with urllib.request.urlopen(f"{base_url}/openapi.json", timeout=10) as response:
        document = json.load(response)
    routes = set()
    for path, item in document["paths"].items():
        for verb in item:
            if verb in ("get", "post", "put", "patch", "delete"):
                routes.add((verb.upper(), _normal(path)))
    return routes


def served_methods(base_url):
    """The SDK methods whose route this service serves, as `resource.method` names."""
    routes = served_routes(base_url)
    return sorted(f"{r}.{m}" for (r, m), route in sdk_methods().items() if route in routes)


def resource_classes():
    """The synchronous resource classes, by module name."""
    out = {}
    for name in dir(resources_pkg):
        if name.endswith("Resource") and not name.startswith("Async") and "With" not in name:
            cls = getattr(resources_pkg, name)
            out[inspect.getmodule(cls).__name__.rsplit(".", 1)[-1]] = cls
    return out


def _normal(path):
    return re.sub(r"\{[^}]*\}", "{}", path)
