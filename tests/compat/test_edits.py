"""The routes that change and delete: run plans (update, delete, a schedule's next run), agents,
metric policies and metric variants, each through the SDK's own method and types."""

import time
import uuid

import pytest
from roark_analytics import BadRequestError, ConflictError, NotFoundError

from conftest import extra, walk


def make_plan(client, world, iterations=1):
    return client.simulation_run_plan.create(
        name=f"Compat edit {uuid.uuid4().hex[:6]}",
        direction="INBOUND",
        max_simulation_duration_seconds=300,
        iteration_count=iterations,
        agent_endpoints=[{"id": world.dental_endpoint().id}],
        flows=[{"id": world.dental_flow().id, "happyPath": True}],
        metrics=[{"slug": "call_duration"}],
    ).data.run_plan


def test_a_plan_is_updated_and_shows_its_next_run(client, world):
    plan = make_plan(client, world)
    updated = client.simulation_run_plan.update(
        plan.id, name="Compat edited", iteration_count=2, comparison_property=None, is_hidden=False
    ).data
    assert (updated.id, updated.name, updated.iteration_count) == (plan.id, "Compat edited", 2)
    assert extra(updated, "nextRunAt") is None
    scheduled = client.simulation_run_plan.update(
        plan.id, extra_body={"schedule": {"type": "weekly", "days": ["monday"], "time": "06:30", "timezone": "Asia/Tokyo"}}
    ).data
    assert extra(scheduled, "nextRunAt")
    assert client.simulation_run_plan.get_by_id(plan.id).data.name == "Compat edited"
    with pytest.raises(BadRequestError) as refused:
        client.simulation_run_plan.update(plan.id, iteration_count=0)
    assert refused.value.body["param"] == "iterationCount"


def test_a_plan_is_deleted_unless_a_job_runs_it(client, world):
    busy = make_plan(client, world, iterations=300)
    job = client.simulation.run(plan_id=busy.id).data.simulation_run_plan_job_id
    with pytest.raises(ConflictError) as refused:
        client.simulation_run_plan.delete(busy.id)
    assert refused.value.body["code"] == "plan_in_use"
    client.simulation_run_plan_job.cancel(job)

    idle = make_plan(client, world)
    assert client.simulation_run_plan.delete(idle.id).data.deleted is True
    with pytest.raises(NotFoundError):
        client.simulation_run_plan.get_by_id(idle.id)
    assert idle.id not in {p.id for p in walk(client.simulation_run_plan.list)}


def test_an_agent_is_updated(client):
    agent = client.agent.create(name=f"Compat agent {uuid.uuid4().hex[:6]}", description="before").data
    updated = client.agent.update(agent.id, name="Compat agent, renamed", description=None).data
    assert (updated.name, updated.description) == ("Compat agent, renamed", None)
    assert client.agent.get_by_id(agent.id).data.name == "Compat agent, renamed"


def test_a_policy_is_deleted_and_a_system_policy_is_not(client, world):
    metric = world.definition("call_duration")
    policy = client.metric_policy.create(name="Compat doomed", modality="call", metrics=[{"id": metric.id}]).data
    assert client.metric_policy.delete(policy.id).data.deleted is True
    with pytest.raises(NotFoundError):
        client.metric_policy.get_by_id(policy.id)
    system = next(p for p in walk(client.metric_policy.list) if p.type == "SYSTEM")
    with pytest.raises(BadRequestError) as refused:
        client.metric_policy.delete(system.id)
    assert refused.value.body["param"] == "policyId"


def test_variants_are_created_listed_renamed_and_deleted(client, world):
    definition = world.definition("task_completion")
    name = f"Compat {uuid.uuid4().hex[:6]}"
    created = client.metric_variant.create(definition.slug, name=name).data
    assert (created.name, created.is_default, created.is_system) == (name, False, False)
    assert created.metric_definition_id == definition.id
    listed = client.metric_variant.list(definition.slug).data
    assert listed[0].is_default and created.id in {v.id for v in listed}
    renamed = client.metric_variant.update(created.id, id_or_slug=definition.slug, name=f"{name} renamed").data
    assert renamed.name == f"{name} renamed" and renamed.version_id == created.version_id
    assert client.metric_variant.get_by_id(created.id, id_or_slug=definition.slug).data.name == f"{name} renamed"
    gone = client.metric_variant.delete(created.id, id_or_slug=definition.slug).data
    assert (gone.id, gone.deleted) == (created.id, True)
    with pytest.raises(BadRequestError):
        client.metric_variant.create(definition.slug, name="Default")
    with pytest.raises(BadRequestError):
        client.metric_variant.delete(definition.variant_id, id_or_slug=definition.slug)
