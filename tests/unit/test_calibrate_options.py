"""training/calibrate.py's command line: --passages narrows the passage settings it tries."""

from __future__ import annotations

import argparse

import pytest

from tests.unit.training_scripts import training_script


@pytest.fixture(scope="module")
def calibrate():
    return training_script("calibrate")


def test_a_passage_setting_reads_top_and_around(calibrate):
    assert calibrate.passage_setting("3:2") == {"top_sentences": 3, "window_around": 2, "window_sizes": [2, 3]}
    assert calibrate.passage_setting("4:0")["window_around"] == 0


@pytest.mark.parametrize("text", ["3", "3:x", "2:3", "0:0", "-1:0", "3:2:1"])
def test_a_malformed_passage_setting_is_refused_with_what_was_expected(calibrate, text):
    with pytest.raises(argparse.ArgumentTypeError, match="TOP"):
        calibrate.passage_setting(text)


def test_every_default_setting_is_one_the_option_can_name(calibrate):
    for setting in calibrate.PASSAGE_SETTINGS:
        named = f"{setting['top_sentences']}:{setting['window_around']}"
        assert calibrate.passage_setting(named) == setting
