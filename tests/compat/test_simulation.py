"""Run plans, runs, run plan jobs and simulation jobs: created, run to the end, read and cancelled."""

import time
import uuid

import pytest
from roark_analytics import BadRequestError

from conftest import extra, walk

ENDED = {"COMPLETED", "FAILED", "TIMED_OUT", "CANCELLED"}


def eventually(check, seconds=120):
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, "not reached in time"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def plan(client, world):
    flow = world.dental_flow()
    return client.simulation_run_plan.create(
        name=f"Compat plan {uuid.uuid4().hex[:6]}",
        direction="INBOUND",
        max_simulation_duration_seconds=300,
        agent_endpoints=[{"id": world.dental_endpoint().id}],
        flows=[{"id": flow.id, "happyPath": True}],
        metrics=[{"slug": "task_completion", "minPassRate": 50}],
    ).data.run_plan


def test_a_plan_reads_back_with_every_member(client, plan):
    read = client.simulation_run_plan.get_by_id(plan.id).data
    assert read.metrics[0].id and read.metrics[0].min_pass_rate == 50
    assert read.metrics[0].conversation_source is None
    assert (read.personas, read.scenarios, read.template) == ([], [], None)
    assert read.max_no_response_retries == 0
    assert read.test_case_count == 1
    assert read.is_config_managed is False
    assert plan.id in {p.id for p in walk(client.simulation_run_plan.list)}


def test_a_run_is_judged_and_its_simulations_read(client, plan):
    started = client.simulation.run(plan_id=plan.id).data
    assert started.simulation_run_plan_id == plan.id
    job = eventually(
        lambda: (j := client.simulation_run_plan_job.get_by_id(started.simulation_run_plan_job_id).data).status in ENDED
        and j
    )
    assert job.status == "COMPLETED"
    assert job.attempt_summary.test_case_count == 1
    assert job.pending_retries == []
    assert job.verdict is not None
    for sim in job.simulation_jobs:
        assert sim.attempt_number == 1 and sim.retry_of_simulation_job_id is None
        read = client.simulation_job.get_by_id(sim.simulation_job_id).data
        assert read.run_plan.id == plan.id
        assert read.status == "COMPLETED"
    listed = walk(client.simulation_run_plan_job.list, simulation_run_plan_id=plan.id)
    assert [j.simulation_run_plan_job_id for j in listed] == [started.simulation_run_plan_job_id]


def test_an_inline_run_and_its_cancellation(client, world):
    flow = world.dental_flow()
    started = client.simulation.run(
        plan={
            "name": "Compat inline",
            "direction": "INBOUND",
            "maxSimulationDurationSeconds": 600,
            "iterationCount": 20,
            "agentEndpoints": [{"id": world.dental_endpoint().id}],
            "flows": [{"id": flow.id, "happyPath": True, "edgeCases": "ALL"}],
            "metrics": [{"slug": "call_duration"}],
        }
    ).data
    try:
        answer = client.simulation_run_plan_job.cancel(started.simulation_run_plan_job_id).data
        assert answer.cancelled is True
        assert answer.status in {"CANCELLING", "CANCELLED"}
    except BadRequestError:
        pytest.fail("the run ended before it could be cancelled: raise iterationCount")
    job = eventually(
        lambda: (j := client.simulation_run_plan_job.get_by_id(started.simulation_run_plan_job_id).data).status in ENDED
        and j
    )
    assert job.status == "CANCELLED"
    with pytest.raises(BadRequestError):
        client.simulation_run_plan_job.cancel(started.simulation_run_plan_job_id)


def test_every_run_plan_job_reads_whole(client):
    for job in walk(client.simulation_run_plan_job.list, limit=10):
        full = client.simulation_run_plan_job.get_by_id(job.simulation_run_plan_job_id).data
        assert len(full.simulation_jobs) == full.attempt_summary.attempt_count
