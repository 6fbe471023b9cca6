"""The hosted-shape fixtures of the model tests (tests/fixtures/model/hosted, written by
hosted_fixtures.py) parse as the SDK's types and hold no member those types do not declare."""

import json
import typing

import pytest
from pydantic import TypeAdapter
import roark_analytics.types as types

from hosted_fixtures import DIR, LISTS, TYPES, WHOLE, prune


def data_type(name):
    """The SDK's type of the fixture: the response's `data`, or one item of it for a list, or
    the whole response."""
    if name in WHOLE:
        return getattr(types, TYPES[name])
    annotation = getattr(types, TYPES[name]).model_fields["data"].annotation
    return typing.get_args(annotation)[0] if name in LISTS else annotation


@pytest.mark.parametrize("name", sorted(TYPES))
def test_the_fixture_is_the_hosted_shape(name):
    path = DIR / f"{name}.json"
    assert path.exists(), f"{path} is missing: write it with hosted_fixtures.py"
    fixture = json.loads(path.read_text())
    parsed = TypeAdapter(data_type(name)).validate_python(fixture)
    assert prune(parsed) == fixture, f"{name}: members the SDK's types do not declare, or values it changes"
