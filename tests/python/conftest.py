"""Shared fixtures of the Python tests (tests/python, run by CTest as `python`):
tiny scenes, so the whole suite stays well under two minutes on 2 cores."""
import os

import pytest

MODELS = os.environ.get("JL_MODELS_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "models")
MODELS = os.path.abspath(MODELS)


def tiny_scene(young=1e5, friction=0.5, y=0.3):
    """One coarse soft box (a few dozen nodes) dropped on the ground."""
    return {
        "duration": 0.2, "fps": 60, "dt": 1 / 60,
        "ground": {"y": 0.0, "friction": friction},
        "bodies": [{"name": "cube", "shape": {"type": "box", "size": [0.2, 0.2, 0.2]},
                    "translate": [0, y, 0], "tetgen": {"max_volume": 1e-3},
                    "density": 500, "young_modulus": young, "damping": 0.5}],
    }


@pytest.fixture
def models():
    return MODELS
