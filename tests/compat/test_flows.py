"""Customer flows made and changed through the hosted SDK: create (scripted and improv), update,
replace_graph, update_happy_path, delete, and the edge-case methods add, update, promote and
remove, each answer parsed strictly as the SDK's types; refusals come back as its errors."""

import uuid

import pytest
from roark_analytics import BadRequestError, NotFoundError

from conftest import walk


def graph():
    return [
        {"type": "AGENT_TURN", "ref": "greet", "content": "Agent greets the caller."},
        {
            "type": "CUSTOMER_TURN",
            "ref": "ask",
            "content": "I'd like to move my cleaning.",
            "steps": [
                {"type": "AGENT_TURN", "ref": "offer", "content": "Agent offers Friday."},
                {"type": "AGENT_TURN", "ref": "full", "content": "Agent offers Monday.", "mergeIntoNodeIds": ["bye"]},
            ],
        },
        {"type": "CUSTOMER_VERBATIM_TURN", "ref": "bye", "content": "Thanks, bye."},
    ]


def scripted(client, world):
    agent = world.dental_flow().agents[0].id
    return client.customer_flow.create(
        type="SCRIPTED",
        title=f"Compat scripted {uuid.uuid4().hex[:6]}",
        graph=graph(),
        agent_ids=[agent],
        agent_expectations=[{"prompt": "The agent confirms the new time."}],
        script_adherence="LOOSE",
    ).data


def improv(client, world):
    environment = walk(client.simulation_environment.list)[0]
    return client.customer_flow.create(
        type="IMPROV",
        title=f"Compat improv {uuid.uuid4().hex[:6]}",
        agent_ids=[world.dental_flow().agents[0].id],
        happy_path={
            "title": "Calm",
            "persona_override_id": world.own_persona().id,
            "environment_id": environment.id,
            "prompt": "You want to move your cleaning.",
        },
        edge_cases=[{"title": "Hurried", "persona_override_id": world.system_persona().id}],
    ).data


def test_a_scripted_flow_is_created_updated_regraphed_and_deleted(client, world):
    flow = scripted(client, world)
    assert (flow.type, flow.source) == ("SCRIPTED", "CUSTOM")
    assert client.customer_flow.get_by_id(flow.id).data.id == flow.id
    updated = client.customer_flow.update(flow.id, title="Compat scripted, renamed", description=None).data
    assert (updated.title, updated.description) == ("Compat scripted, renamed", None)

    replaced = client.customer_flow.replace_graph(flow.id, graph=graph()).data
    assert (replaced.variants_reshaped, replaced.warnings) == (False, [])
    assert len(replaced.graph) == 3
    happy = client.customer_flow.update_happy_path(flow.id, title="Main path").data
    assert happy.title == "Main path"

    with pytest.raises(BadRequestError) as refused:
        client.customer_flow.replace_graph(flow.id, graph=[{"type": "VOICEMAIL"}])
    assert refused.value.body["details"]["violations"][0]["param"] == "graph[0].type"

    assert client.customer_flow.delete(flow.id).data.deleted is True
    with pytest.raises(NotFoundError):
        client.customer_flow.get_by_id(flow.id)


def test_a_new_flows_problems_are_named_at_once(client):
    with pytest.raises(BadRequestError) as refused:
        client.customer_flow.create(
            type="SCRIPTED",
            title="Compat broken",
            graph=[
                {"type": "CUSTOMER_SILENCE", "content": "shh"},
                {"type": "AGENT_TURN", "content": "Hi", "mergeIntoNodeIds": ["nowhere"]},
            ],
        )
    params = {v["param"] for v in refused.value.body["details"]["violations"]}
    assert {"graph[0].content", "graph[1].mergeIntoNodeIds[0]"} <= params


def test_an_improv_flows_edge_cases_are_added_updated_promoted_and_removed(client, world):
    flow = improv(client, world)
    assert flow.type == "IMPROV" and len(flow.edge_cases) == 1
    added = client.customer_flow_edge_case.add(flow.id, title="Angry", prompt="You are cross.").data
    assert added.title == "Angry"
    changed = client.customer_flow_edge_case.update(added.id, flow_id=flow.id, title="Furious").data
    assert changed.title == "Furious"
    promoted = client.customer_flow_edge_case.promote(added.id, flow_id=flow.id).data
    assert promoted.id == added.id
    assert client.customer_flow.get_by_id(flow.id).data.happy_path.id == added.id
    removed = client.customer_flow_edge_case.remove(flow.happy_path.id, flow_id=flow.id).data
    assert removed.deleted is True
    with pytest.raises(NotFoundError):
        client.customer_flow_edge_case.remove(flow.happy_path.id, flow_id=flow.id)


def test_a_service_managed_flow_is_refused(client, world):
    voicemail = world.flow("VOICEMAIL", source="SYSTEM")
    with pytest.raises(BadRequestError) as refused:
        client.customer_flow.delete(voicemail.id)
    assert refused.value.body["param"] == "flowId"
    assert "voicemail" in refused.value.body["message"]
