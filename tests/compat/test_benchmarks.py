"""Benchmark suites and the scorer's samples."""


def test_suites_and_every_score_sample_page(client):
    suites = {s.suite: s for s in client.benchmark.list_suites().data}
    assert "voice-agent-reception-v1" in suites
    offset, samples = 0, []
    while True:
        page = client.benchmark.list_target_score_samples(
            "acme-voice-pro", suite="voice-agent-reception-v1", limit=25, offset=offset
        )
        assert page.target.target_key == "acme-voice-pro"
        assert page.pagination.limit == 25
        samples.extend(page.data)
        if not page.pagination.has_more:
            break
        offset += 25
    assert len(samples) == page.pagination.total > 25
