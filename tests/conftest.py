"""Shared test settings: hypothesis profiles (``HYPOTHESIS_PROFILE=ci`` is derandomised so
CI sees the same examples every run) and small strategies for racks."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
