"""Fixtures in the hosted interface's shapes, for the `api` model's round-trip tests
(tests/model_roundtrip.rs, `hosted_*`): one item of each resource the console reads, as the
official SDK parses it, with every member the SDK's types do not declare (this service's
extensions: counts, per-simulation outcomes, events, ...) taken out. What is left is exactly
what the hosted service sends, so the console's model is proved to read it without them.

Written from a seeded `switchboard serve`:
    SWITCHBOARD_BASE_URL=... SWITCHBOARD_API_KEY=... .ci/.venv-hosted/bin/python tests/compat/hosted_fixtures.py
test_hosted_fixtures.py checks on every run that the committed files still parse as the
SDK's types and carry nothing else.
"""

import json
import os
import pathlib
import sys

from pydantic import BaseModel

DIR = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "model" / "hosted"


def prune(value):
    """A parsed SDK value as JSON, with only the members its type declares (by wire name)."""
    if isinstance(value, BaseModel):
        out = {}
        for name, field in type(value).model_fields.items():
            if name not in value.model_fields_set:
                continue
            out[field.alias or name] = prune(getattr(value, name))
        return out
    if isinstance(value, list):
        return [prune(v) for v in value]
    if isinstance(value, dict):
        return {k: prune(v) for k, v in value.items()}
    return value


def wire(value):
    """As a service writes JSON: a whole number without `.0` (the SDK types many counts as
    float, so a parsed 23555 dumps as 23555.0, which no service sends)."""
    if isinstance(value, dict):
        return {k: wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [wire(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# name: (the SDK's response type, in roark_analytics.types, that `{"data": fixture}` parses as)
TYPES = {
    "persona": "SimulationPersonaGetByIDResponse",
    "customer_flow": "CustomerFlowGetByIDResponse",
    "run_plan": "SimulationRunPlanGetByIDResponse",
    "run_plan_job": "SimulationRunPlanJobGetByIDResponse",
    "simulation_job": "SimulationJobGetByIDResponse",
    "metric_definition": "MetricListDefinitionsResponse",
    "metric_variant": "MetricVariantGetByIDResponse",
    "metric_policy": "MetricPolicyGetByIDResponse",
    "metric_collection_job": "MetricCollectionJobGetByIDResponse",
    "call": "CallGetByIDResponse",
    "transcript": "CallGetTranscriptResponse",
    "call_metrics": "CallListMetricsResponse",
    "agent": "AgentGetByIDResponse",
    "agent_endpoint": "AgentEndpointGetByIDResponse",
    "http_request_definition": "HTTPRequestDefinitionGetByIDResponse",
    "benchmark_suite_entry": "BenchmarkListSuitesResponse",
    "template": "SimulationTemplateListResponse",
    "health": "HealthGetResponse",
    "score_sample_page": "BenchmarkListTargetScoreSamplesResponse",
}

# Responses whose `data` is a list: the fixture is one item, wrapped back in a list to parse.
LISTS = {"metric_definition", "call_metrics", "benchmark_suite_entry", "template"}

# Responses kept whole (the page is what the console reads), their `data` cut to two items.
WHOLE = {"score_sample_page"}


def fetch(client):
    """{name: pruned `data`} from a seeded service, found through the SDK."""
    import conftest

    world = conftest.World(client)
    plan = client.simulation_run_plan.list(limit=1).data[0]
    jobs = client.simulation_run_plan_job.list(limit=50).data
    job = next(j for j in jobs if j.status == "COMPLETED")
    job = client.simulation_run_plan_job.get_by_id(job.simulation_run_plan_job_id)
    sim = job.data.simulation_jobs[0]
    calls = client.call.list(limit=5).data
    call = calls[0]
    agent = world.agents[0]
    endpoint = world.dental_endpoint()
    definitions = client.http_request_definition.list(limit=1).data
    policy = client.metric_policy.list(limit=1).data[0]
    collection = client.metric_collection_job.list(limit=1).data[0]
    metric = world.definition("task_completion")
    got = {
        "persona": client.simulation_persona.get_by_id(world.own_persona().id),
        "customer_flow": client.customer_flow.get_by_id(world.dental_flow().id),
        "run_plan": client.simulation_run_plan.get_by_id(plan.id),
        "run_plan_job": job,
        "simulation_job": client.simulation_job.get_by_id(sim.simulation_job_id),
        "metric_definition": client.metric.list_definitions(limit=50),
        "metric_variant": client.metric_variant.get_by_id("default", id_or_slug=metric.id),
        "metric_policy": client.metric_policy.get_by_id(policy.id),
        "metric_collection_job": client.metric_collection_job.get_by_id(collection.id),
        "call": client.call.get_by_id(call.id),
        "transcript": client.call.get_transcript(call.id),
        "call_metrics": client.call.list_metrics(call.id),
        "agent": client.agent.get_by_id(agent.id),
        "agent_endpoint": client.agent_endpoint.get_by_id(endpoint.id),
        "benchmark_suite_entry": client.benchmark.list_suites(),
        "template": client.simulation_template.list(),
        "health": client.health.get(),
        "score_sample_page": client.benchmark.list_target_score_samples(
            "acme-voice-pro", suite="voice-agent-reception-v1", limit=2
        ),
    }
    if definitions:
        got["http_request_definition"] = client.http_request_definition.get_by_id(definitions[0].id)
    out = {}
    for name, response in got.items():
        data = prune(response) if name in WHOLE else prune(response)["data"]
        if name in LISTS:
            data = pick(name, data)
        if name == "run_plan_job":
            # Two simulations say as much as nine, in a tenth of the file.
            data["simulationJobs"] = data["simulationJobs"][:2]
        out[name] = wire(data)
    return out


def pick(name, items):
    """The richest item of a list: the one with the most members set (a judged metric, say)."""
    def weight(item):
        return len(json.dumps(item))

    return max(items, key=weight)


def write(fixtures):
    DIR.mkdir(parents=True, exist_ok=True)
    for name, data in fixtures.items():
        (DIR / f"{name}.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {DIR / name}.json")


if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    from roark_analytics import Roark

    client = Roark(
        bearer_token=os.environ["SWITCHBOARD_API_KEY"],
        base_url=os.environ["SWITCHBOARD_BASE_URL"].rstrip("/"),
        max_retries=0,
        _strict_response_validation=True,
    )
    write(fetch(client))
