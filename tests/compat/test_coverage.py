"""The suite calls every SDK method whose route this service serves."""

import conftest
import sdk_routes


def test_every_served_sdk_method_was_called():
    served = sdk_routes.served_methods(conftest.base_url())
    missing = [m for m in served if m not in conftest.CALLED]
    assert not missing, f"SDK methods with a served route that no test called: {missing}"
