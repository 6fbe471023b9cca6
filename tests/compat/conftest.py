"""The hosted service's official Python SDK, pointed at `switchboard serve`, with strict
response validation on: every answer must parse as the hosted interface's own types.

`SWITCHBOARD_BASE_URL` and `SWITCHBOARD_API_KEY` name the service (.ci/compat starts one with
the seeded world and sets both).
"""

import functools
import os

import pytest
from roark_analytics import Roark

import sdk_routes

CALLED = {}


def _record(resource, method, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        key = f"{resource}.{method}"
        CALLED[key] = CALLED.get(key, 0) + 1
        return fn(*args, **kwargs)

    return wrapper


def pytest_configure(config):
    # Every typed method counts the calls made through it, so the suite can prove it called
    # each one whose route the service serves.
    classes = sdk_routes.resource_classes()
    for resource, method in sdk_routes.sdk_methods():
        cls = classes.get(resource)
        if cls is not None and hasattr(cls, method):
            setattr(cls, method, _record(resource, method, getattr(cls, method)))


def pytest_collection_modifyitems(config, items):
    # The coverage check runs last, once every other test has made its calls.
    last = [i for i in items if i.name == "test_every_served_sdk_method_was_called"]
    rest = [i for i in items if i.name != "test_every_served_sdk_method_was_called"]
    items[:] = rest + last


def pytest_terminal_summary(terminalreporter):
    try:
        served = sdk_routes.served_methods(base_url())
    except Exception:  # the service is gone: nothing to count against
        return
    called = [m for m in served if m in CALLED]
    requests = sum(CALLED.values())
    terminalreporter.write_line(
        f"hosted SDK: {len(called)} of the {len(served)} methods whose route switchboard serves were called "
        f"({requests} typed calls in all)"
    )


def base_url():
    return os.environ["SWITCHBOARD_BASE_URL"].rstrip("/")


@pytest.fixture(scope="session")
def client():
    return Roark(
        bearer_token=os.environ["SWITCHBOARD_API_KEY"],
        base_url=base_url(),
        max_retries=0,
        timeout=60,
        _strict_response_validation=True,
    )


@pytest.fixture(scope="session")
def world(client):
    """Ids of the seeded world the tests use, found through the SDK (never hard-coded)."""
    return World(client)


def extra(model, name):
    """A member the hosted type does not declare (an extension of the local service)."""
    return (model.model_extra or {}).get(name)


class World:
    def __init__(self, client):
        self.client = client

    @functools.cached_property
    def personas(self):
        return walk(self.client.simulation_persona.list)

    @functools.cached_property
    def flows(self):
        return walk(self.client.customer_flow.list)

    @functools.cached_property
    def endpoints(self):
        return walk(self.client.agent_endpoint.list)

    @functools.cached_property
    def agents(self):
        return walk(self.client.agent.list)

    @functools.cached_property
    def definitions(self):
        return walk(self.client.metric.list_definitions)

    def system_persona(self):
        return next(p for p in self.personas if extra(p, "isSystem"))

    def own_persona(self):
        return next(p for p in self.personas if not extra(p, "isSystem"))

    def flow(self, flow_type, source="CUSTOM"):
        return next(f for f in self.flows if f.type == flow_type and f.source == source)

    def dental_flow(self):
        return next(f for f in self.flows if f.type == "SCRIPTED" and f.source == "CUSTOM" and "clean" in f.title)

    def dental_endpoint(self):
        agent = next(a for a in self.agents if a.custom_id == "brightsmile-front-desk")
        return next(e for e in self.endpoints if e.agent_id == agent.id and e.direction == "INCOMING")

    def definition(self, slug):
        return next(d for d in self.definitions if d.slug == slug)


def walk(list_method, limit=5, **query):
    """Every item of a cursor-paged list, page by page through `after` (small pages, so the walk
    crosses pages); fails on a page that repeats, which is how a list ignoring `after` shows."""
    items, seen, after = [], set(), None
    for _ in range(1000):
        page = list_method(limit=limit, **({"after": after} if after else {}), **query)
        ids = [item_id(i) for i in page.data]
        assert not (set(ids) & seen), f"{list_method.__qualname__} served an item twice: paging ignores `after`"
        seen.update(ids)
        items.extend(page.data)
        if not page.pagination.has_more:
            assert not getattr(page.pagination, "next_cursor", None), "nextCursor on the last page"
            return items
        after = page.pagination.next_cursor
        assert after, "hasMore without nextCursor"
    raise AssertionError("a list that never ends")


def item_id(item):
    for name in ("id", "simulation_run_plan_job_id", "simulation_job_id"):
        if getattr(item, name, None):
            return getattr(item, name)
    return repr(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # A response that does not parse says which members, not only "invalid for expected schema".
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None and call.excinfo.type.__name__ == "APIResponseValidationError":
        cause = call.excinfo.value.__cause__
        if cause is not None and hasattr(cause, "errors"):
            report.sections.append(("hosted type mismatches", "\n".join(mismatches(cause.errors())[:80])))


DISCRIMINATORS = ("type", "calculationType")


def mismatches(errors):
    """Pydantic's errors without the noise of unions: a union member whose discriminator
    (`type`, `calculationType`) does not match is left out; a value no member matches says so."""
    def member_at(loc):
        # The last union member segment (a class name) in a location, and the location up to it.
        for i in range(len(loc) - 1, -1, -1):
            if isinstance(loc[i], str) and loc[i][:1].isupper():
                return tuple(loc[:i]), loc[i]
        return None, None

    rejected, members = set(), {}
    for e in errors:
        loc = tuple(e["loc"])
        where, member = member_at(loc)
        if member is None:
            continue
        members.setdefault(where, set()).add(member)
        if e["type"] == "literal_error" and loc[-1] in DISCRIMINATORS and len(loc) == len(where) + 2:
            rejected.add((where, member, repr(e.get("input"))))
    dropped = {(w, m) for (w, m, _) in rejected}
    out = []
    for where, names in members.items():
        if names and all((where, n) in dropped for n in names):
            value = next(v for (w, _, v) in rejected if w == where)
            out.append(f"{'.'.join(map(str, where))}: no member of the union takes {value}")
    for e in errors:
        loc = tuple(e["loc"])
        where, member = member_at(loc)
        if member is not None and (where, member) in dropped:
            continue
        out.append(f"{'.'.join(map(str, loc))}: {e['msg']} (got {str(e.get('input'))[:60]!r})")
    return list(dict.fromkeys(out))
