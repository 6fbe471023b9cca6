"""Config as code and simulation environments through the hosted SDK: `config.diff`, then
`config.apply` of the same bundle, a second apply that changes nothing, a refusal that lists
every problem, and the environment routes, each answer parsed strictly as the SDK's types."""

import uuid

import pytest
from roark_analytics import BadRequestError

from conftest import walk


def bundle(suffix, environment):
    return [
        {"kind": "agent", "name": f"cfg-desk-{suffix}",
         "endpoints": [{"type": "PHONE", "value": "+1555010" + suffix[:4].translate(str.maketrans("abcdef", "123456")),
                        "direction": "INCOMING"}]},
        {"kind": "persona", "name": f"cfg-caller-{suffix}", "accent": "US", "gender": "FEMALE", "language": "EN"},
        {"kind": "metric", "name": f"cfg_polite_{suffix}", "type": "BOOLEAN", "prompt": "Was the agent polite?"},
        {"kind": "flow", "type": "scripted", "name": f"cfg-script-{suffix}", "agents": [f"cfg-desk-{suffix}"],
         "graph": [{"type": "AGENT_TURN", "ref": "greet", "content": "Agent greets the caller."},
                   {"type": "CUSTOMER_TURN", "ref": "ask", "content": "I need to move my appointment."}]},
        {"kind": "flow", "type": "improv", "name": f"cfg-improv-{suffix}", "agents": [f"cfg-desk-{suffix}"],
         "happyPath": {"persona": f"cfg-caller-{suffix}", "environment": environment, "prompt": "Book a visit."},
         "edgeCases": [{"name": "rushed", "prompt": "You are in a hurry."}]},
        {"kind": "simulationPlan", "name": f"cfg-plan-{suffix}", "direction": "INBOUND", "maxDurationSeconds": 300,
         "agentEndpoints": [{"agent": f"cfg-desk-{suffix}"}], "flows": [{"flow": f"cfg-script-{suffix}"}],
         "metrics": [f"cfg_polite_{suffix}"], "schedule": {"type": "hourly", "minute": 15}},
        {"kind": "dashboard", "name": f"cfg-board-{suffix}"},
    ]


@pytest.fixture(scope="module")
def environment(client):
    name = f"compat lab {uuid.uuid4().hex[:6]}"
    created = client.simulation_environment.create(background_noise="LIBRARY", name=name, background_noise_volume=0.2)
    return created.data


def test_environments_are_created_listed_read_updated_and_deleted(client):
    created = client.simulation_environment.create(
        background_noise="COFFEE_SHOP", name=f"compat cafe {uuid.uuid4().hex[:6]}",
        description="a café")
    env = created.data
    assert env.background_noise_volume == 0.1
    listed = walk(client.simulation_environment.list)
    assert env.id in {e.id for e in listed}
    assert any(e.name == "Quiet home" for e in listed), "the seeded environments are listed"
    assert client.simulation_environment.get_by_id(env.id).data.name == env.name
    updated = client.simulation_environment.update(env.id, background_noise_volume=0.5)
    assert updated.data.background_noise_volume == 0.5
    assert updated.data.background_noise == "COFFEE_SHOP"
    deleted = client.simulation_environment.delete(env.id)
    assert deleted.data.deleted is True


def test_a_bundle_is_diffed_applied_and_applied_again_without_change(client, environment):
    suffix = uuid.uuid4().hex[:6]
    resources = bundle(suffix, environment.name)
    diffed = client.config.diff(resources=resources, prune=False)
    assert diffed.data.summary.create == 6
    applied = client.config.apply(resources=resources, prune=False)
    assert [(c.config_key, c.op) for c in applied.data.changes] == [(c.config_key, c.op) for c in diffed.data.changes]
    assert applied.data.summary.create == 6
    skipped = next(c for c in applied.data.changes if c.kind == "dashboard")
    assert skipped.status == "skipped" and "does not keep" in skipped.detail
    plan = next(c for c in applied.data.changes if c.kind == "simulationPlan")
    assert client.simulation_run_plan.get_by_id(plan.id).data.is_config_managed is True
    again = client.config.apply(resources=resources, prune=False)
    assert again.data.summary.noop == 6 and again.data.summary.create == 0 and again.data.summary.update == 0


def test_a_bundle_with_problems_is_refused_with_every_one(client):
    with pytest.raises(BadRequestError) as refused:
        client.config.diff(resources=[
            {"kind": "persona", "name": "x", "accent": "US", "gender": "FEMALE", "language": "EN", "shoeSize": 9},
            {"kind": "simulationPlan", "name": "y", "direction": "INBOUND", "maxDurationSeconds": 60,
             "agentEndpoints": [{"agent": "nobody-at-all"}], "flows": [{"flow": "no-such-flow"}], "metrics": []},
        ], prune=False)
    violations = refused.value.body["details"]["violations"]
    params = {v["param"] for v in violations}
    assert {"resources[0].shoeSize", "resources[1].agentEndpoints[0].agent", "resources[1].flows[0].flow"} <= params
    assert all(v["configKey"] for v in violations)
