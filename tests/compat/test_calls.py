"""Calls: ingest as the SDK sends it, lists, transcripts and per-call metrics."""

import pytest
from roark_analytics import BadRequestError

from conftest import walk


def test_a_call_is_ingested_as_the_sdk_sends_it(client, world):
    agent = world.agents[0]
    created = client.call.create(
        call_direction="INBOUND",
        interface_type="PHONE",
        recording_url="https://recordings.example/compat.wav",
        started_at="2026-10-20T16:00:00Z",
        agent={"roarkId": agent.id},
        customer={"phoneNumberE164": "+15550102222"},
        transcript=[
            {"role": "AGENT", "text": "Brightsmile Dental, how can I help?", "startOffsetMs": 0, "endOffsetMs": 2000},
            {"role": "CUSTOMER", "text": "I need to move my cleaning.", "startOffsetMs": 2300, "endOffsetMs": 4200},
        ],
    ).data
    assert created.call_direction == "INBOUND"
    call = client.call.get_by_id(created.id).data
    assert call.recording_url == "https://recordings.example/compat.wav"
    assert call.agents and call.agents[0].id == agent.id
    transcript = client.call.get_transcript(created.id).data
    assert [e.role for e in transcript.entries] == ["AGENT", "CUSTOMER"]


def test_an_ingested_transcript_entry_with_a_bad_role_names_the_entry(client):
    with pytest.raises(BadRequestError) as refused:
        client.call.create(
            call_direction="INBOUND",
            interface_type="PHONE",
            recording_url="https://recordings.example/x.wav",
            started_at="2026-10-20T16:00:00Z",
            transcript=[{"role": "ROBOT", "text": "beep", "startOffsetMs": 0, "endOffsetMs": 10}],
        )
    assert refused.value.body["param"] == "transcript[0].role"


def test_calls_list_whole_and_each_reads_with_transcript_and_metrics(client):
    calls = walk(client.call.list, limit=20)
    assert len(calls) >= 40
    for call in calls[:: max(1, len(calls) // 8)]:
        assert client.call.get_by_id(call.id).data.project_id
        client.call.get_transcript(call.id)
        client.call.list_metrics(call.id)
        client.call.list_metrics(call.id, status="all")
