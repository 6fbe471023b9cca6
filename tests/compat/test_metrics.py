"""Metric definitions, their variants, policies and collection jobs."""

import uuid

import pytest
from roark_analytics import BadRequestError

from conftest import walk


def test_definitions_list_whole_with_every_calculation_type(client, world):
    kinds = {d.calculation_type for d in world.definitions}
    assert {"PROVIDER", "LLM_JUDGE"} <= kinds
    for definition in world.definitions:
        assert definition.evidence_source is None or definition.evidence_source.metric_id


def test_a_definition_is_created_with_output_type_and_updated(client):
    slug = f"compat_{uuid.uuid4().hex[:8]}"
    created = client.metric.create_definition(
        calculation_type="LLM_JUDGE",
        name="Compat politeness",
        output_type="BOOLEAN",
        slug=slug,
        llm_prompt="Was the agent polite throughout?",
    ).data
    assert (created.slug, created.type, created.calculation_type) == (slug, "BOOLEAN", "LLM_JUDGE")
    updated = client.metric.update_definition(slug, name="Compat courtesy", change_reason="renamed").data
    assert updated.name == "Compat courtesy"
    assert updated.version_id != created.version_id


def test_a_service_owned_definition_cannot_be_updated(client, world):
    with pytest.raises(BadRequestError) as refused:
        client.metric.update_definition(world.definition("task_completion").id, name="Mine now")
    assert refused.value.body["param"] == "idOrSlug"


def test_variants_are_variant_objects(client, world):
    definition = world.definition("task_completion")
    default = client.metric_variant.get_by_id(definition.variant_id, id_or_slug=definition.slug).data
    assert default.is_default and default.is_system
    assert default.metric_definition_id == definition.id
    forked = client.metric_variant.update(
        "strict", id_or_slug=definition.slug, llm_prompt="Did the caller leave with the task done, strictly?"
    ).data
    assert forked.name == "strict"
    assert not forked.is_default and not forked.is_system
    assert forked.version_id
    read = client.metric_variant.get_by_id(forked.id, id_or_slug=definition.slug).data
    assert read.id == forked.id


def test_policies_are_created_updated_listed_and_read(client, world):
    metric = world.definition("call_duration")
    agent = world.agents[0]
    created = client.metric_policy.create(
        name="Compat policy",
        modality="call",
        metrics=[{"id": metric.id}],
        conditions=[{"conditions": [{"conditionKey": agent.id, "conditionType": "AGENT", "conditionValue": agent.id}]}],
    ).data
    assert created.type == "USER"
    assert created.metrics[0].settings is None
    assert created.conditions[0].conditions[0].condition_type == "AGENT"
    updated = client.metric_policy.update(created.id, status="INACTIVE", name="Compat policy, off").data
    assert (updated.status, updated.name) == ("INACTIVE", "Compat policy, off")
    assert client.metric_policy.get_by_id(created.id).data.status == "INACTIVE"
    assert created.id in {p.id for p in walk(client.metric_policy.list)}


def test_collection_jobs_are_created_listed_read_and_cancelled(client, world):
    call = client.call.list(limit=1).data[0]
    metric = world.definition("call_duration")
    job = client.metric_collection_job.create(metrics=[{"id": metric.id}], call_ids=[call.id]).data
    assert job.triggered_by == "USER_API"
    assert job.total_items == 1
    read = client.metric_collection_job.get_by_id(job.id).data
    assert read.id == job.id
    assert job.id in {j.id for j in walk(client.metric_collection_job.list)}
    try:
        cancelled = client.metric_collection_job.cancel(job.id).data
        assert cancelled.status == "CANCELED"
    except BadRequestError as ended:
        # The job may have finished first: cancelling an ended job is refused.
        assert ended.body["param"] == "jobId"
