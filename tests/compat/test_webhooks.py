"""Webhooks: created with a signing secret shown once, listed, read and deleted in the SDK's shapes."""

import pytest
from roark_analytics import BadRequestError, NotFoundError

from conftest import walk


def test_a_webhook_is_created_read_listed_and_deleted(client):
    created = client.webhook.create(
        events=["SIMULATION_RUN_PLAN_JOB_COMPLETED", "ISSUE_OPENED"],
        url="http://127.0.0.1:9/compat-hook",
        description="made by the SDK suite",
        headers={"x-team": "qa"},
    ).data
    assert created.signing_secret.startswith("whsec_")
    assert created.events == ["SIMULATION_RUN_PLAN_JOB_COMPLETED", "ISSUE_OPENED"]
    read = client.webhook.get_by_id(created.id).data
    assert (read.url, read.description, read.headers) == (created.url, "made by the SDK suite", {"x-team": "qa"})
    assert "signingSecret" not in client.webhook.with_raw_response.get_by_id(created.id).text()
    assert created.id in {w.id for w in walk(client.webhook.list)}
    assert client.webhook.delete(created.id).data.success is True
    with pytest.raises(NotFoundError):
        client.webhook.get_by_id(created.id)


def test_a_webhooks_secret_header_reads_masked(client):
    created = client.webhook.create(
        events=["ISSUE_OPENED"],
        url="http://127.0.0.1:9/compat-hook",
        headers={"Authorization": "Bearer tok_compat_abcdefgh", "x-team": "qa"},
    ).data
    assert created.headers == {"Authorization": "••••efgh", "x-team": "qa"}
    assert client.webhook.get_by_id(created.id).data.headers == created.headers
    client.webhook.delete(created.id)


def test_a_webhook_without_a_description_reads_as_null(client):
    created = client.webhook.create(events=["ISSUE_RESOLVED"], url="https://receiver.example/hook").data
    assert created.description is None
    assert created.headers == {}
    client.webhook.delete(created.id)


def test_an_unknown_event_type_is_refused(client):
    with pytest.raises(BadRequestError):
        client.webhook.create(events=["ISSUE_EXPLODED"], url="https://receiver.example/hook")
