"""Health, agents and their endpoints, HTTP request definitions, personas, flows and templates."""

import uuid

import pytest
from roark_analytics import BadRequestError, NotFoundError

from conftest import extra, walk


def test_health_answers_in_the_sdk_shape(client):
    health = client.health.get()
    assert health.data.status == "healthy"
    assert health.data.version


def test_agents_are_created_listed_and_read(client):
    name = f"compat agent {uuid.uuid4().hex[:6]}"
    created = client.agent.create(name=name, description="made by the SDK suite")
    assert created.data.name == name
    assert created.data.custom_id is None
    assert client.agent.get_by_id(created.data.id).data.id == created.data.id
    assert created.data.id in {a.id for a in walk(client.agent.list)}


def test_endpoints_are_created_updated_listed_and_read(client, world):
    agent = world.agents[0]
    created = client.agent_endpoint.create(agent_id=agent.id, direction="INCOMING", value="+15550107777")
    endpoint = created.data
    assert endpoint.outbound_dial_type == "NONE"
    assert endpoint.outbound_dial_http_request_definition_id is None
    updated = client.agent_endpoint.update(endpoint.id, environment="staging")
    assert updated.data.environment == "staging"
    assert client.agent_endpoint.get_by_id(endpoint.id).data.environment == "staging"
    assert endpoint.id in {e.id for e in walk(client.agent_endpoint.list)}


def test_http_request_definitions_are_created_listed_and_read(client):
    created = client.http_request_definition.create(
        scope="AGENT_OUTBOUND_DIAL", url="https://agent.example/turn", body={"text": "{{text}}"}
    )
    definition = created.data
    assert definition.method == "POST"
    assert definition.parsed_body == {"text": "{{text}}"}
    assert definition.is_config_managed is False
    assert definition.signing_secret
    read = client.http_request_definition.get_by_id(definition.id).data
    assert read.url == "https://agent.example/turn"
    assert definition.id in {d.id for d in walk(client.http_request_definition.list)}


def test_a_definitions_secret_header_reads_masked_and_an_update_of_the_mask_keeps_it(client):
    created = client.http_request_definition.create(
        scope="AGENT_OUTBOUND_DIAL",
        url="https://agent.example/turn",
        headers={"Authorization": "Bearer tok_compat_abcdefgh", "Accept": "application/json"},
    ).data
    assert created.headers == {"Authorization": "••••efgh", "Accept": "application/json"}
    read = client.http_request_definition.get_by_id(created.id).data
    updated = client.http_request_definition.update(created.id, description="edited", headers=read.headers).data
    assert (updated.description, updated.headers) == ("edited", read.headers)
    assert "tok_compat" not in client.http_request_definition.with_raw_response.get_by_id(created.id).text()


def test_a_persona_is_created_with_every_member_and_updated_in_part(client):
    created = client.simulation_persona.create(
        name="Compat Caller", accent="GB", gender="FEMALE", language="EN", background_noise="CITY"
    ).data
    # Every member the hosted type requires is there, the unset ones at their defaults.
    assert created.age == "ADULT"
    assert created.interruption == "OFF"
    assert created.idle_messages is None
    assert created.understood_languages == ["EN"]
    assert created.properties == {}
    # A partial PUT changes what it names and keeps the rest.
    updated = client.simulation_persona.update(created.id, speech_pace="FAST", interruption="OCCASIONAL").data
    assert (updated.name, updated.accent, updated.background_noise) == ("Compat Caller", "GB", "CITY")
    assert (updated.speech_pace, updated.interruption) == ("FAST", "OCCASIONAL")
    assert client.simulation_persona.get_by_id(created.id).data.speech_pace == "FAST"


def test_barge_in_timing_is_stored_as_quick_with_occasional_interruption(client):
    created = client.simulation_persona.create(
        name="Barger", accent="US", gender="MALE", language="EN", response_timing="BARGE_IN"
    ).data
    assert (created.response_timing, created.interruption) == ("QUICK", "OCCASIONAL")


def test_a_persona_with_a_value_the_hosted_interface_lacks_is_refused(client):
    with pytest.raises(BadRequestError) as refused:
        client.simulation_persona.create(
            name="Old", accent="US", gender="MALE", language="EN", extra_body={"backgroundNoise": "STREET"}
        )
    assert refused.value.body["param"] == "backgroundNoise"


def test_a_system_persona_cannot_be_deleted(client, world):
    # The SDK has no persona delete; its generic request method still validates the answer.
    persona = world.system_persona()
    with pytest.raises(BadRequestError) as refused:
        client.delete(f"/v1/persona/{persona.id}", cast_to=object)
    assert refused.value.body["param"] == "personaId"


def test_personas_list_whole(client, world):
    assert len(world.personas) >= 6
    assert client.simulation_persona.get_by_id(world.own_persona().id).data.name


def test_flows_list_and_read_in_the_hosted_shapes(client, world):
    kinds = {f.type for f in world.flows}
    assert kinds == {"SCRIPTED", "IMPROV", "VOICEMAIL"}
    for flow in world.flows:
        read = client.customer_flow.get_by_id(flow.id).data
        assert read.type == flow.type


def test_a_flow_is_duplicated(client, world):
    flow = world.dental_flow()
    copy = client.customer_flow.duplicate(flow.id, title="Compat copy").data
    assert copy.id != flow.id
    assert copy.source == "CUSTOM"


def test_a_voicemail_flow_cannot_be_duplicated(client, world):
    voicemail = world.flow("VOICEMAIL", source="SYSTEM")
    with pytest.raises(BadRequestError):
        client.customer_flow.duplicate(voicemail.id)


def test_templates_are_listed_in_the_hosted_shape(client):
    templates = client.simulation_template.list().data
    assert templates
    for template in templates:
        assert template.slug and template.title and template.description and template.category
        assert extra(template, "plan"), "the local service adds a runnable plan"
        assert template.flows
        for flow in template.flows:
            assert flow.title


def test_an_unknown_id_is_not_found(client):
    with pytest.raises(NotFoundError):
        client.simulation_persona.get_by_id(str(uuid.uuid4()))
