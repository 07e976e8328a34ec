"""Which judge a calibration measured: its model, its prompt and its version, and the file named for it.

A calibration holds only for the judge it measured. The offline judge is named by
`offline_judge_version` (its code, model, settings and embedder); a chat model by its name, a digest
of the judge prompt it is given, and the version of the signals read from its verdicts
(`veracity.calibration.signals.SIGNALS_VERSION`, which include the offline judge's reading).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from veracity.context import Context
from veracity.mode import OFFLINE
from veracity.prompts.judge import JUDGE_USER_TEMPLATE, SOURCE_JUDGE_ADDENDUM

JudgeKind = Literal["offline", "chat"]


@dataclass(frozen=True)
class JudgeIdentity:
    """The judge a calibration file was measured for."""

    kind: JudgeKind
    model: str
    """'offline', or the chat model as the run names it ('openai:gpt-4.1-mini')."""
    prompt_version: str
    """A digest of the judge prompt (system text, source-mode addendum, user template); '' for the offline judge."""
    judge_version: str
    """The offline judge's version; for a chat model, the signals' version and the offline judge's."""

    def to_dict(self) -> dict[str, str]:
        """The form `from_dict` reads."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> JudgeIdentity:
        """Read the ``judge`` section of a calibration file; ValueError names what is wrong."""
        if not isinstance(data, dict) or data.get("kind") not in ("offline", "chat"):
            raise ValueError("its 'judge' section must name a kind ('offline' or 'chat')")
        missing = [key for key in ("model", "prompt_version", "judge_version") if not isinstance(data.get(key), str)]
        if missing:
            raise ValueError(f"its 'judge' section lacks {', '.join(missing)}")
        return cls(data["kind"], data["model"], data["prompt_version"], data["judge_version"])

    def describe(self) -> str:
        """One line for people: 'offline judge 0.1.0+abc' or 'openai:gpt-4.1-mini, judge prompt 1a2b3c...'."""
        if self.kind == "offline":
            return f"the offline judge {self.judge_version}"
        return f"{self.model} (judge prompt {self.prompt_version}, signals {self.judge_version})"

    def file_name(self) -> str:
        """The calibration file's name in the data folder: the model, and a digest of the whole identity."""
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", self.model).strip("-.")[:60] or "judge"
        digest = hashlib.sha256(repr(sorted(self.to_dict().items())).encode()).hexdigest()[:12]
        return f"{slug}-{digest}.json"


def prompt_version(context: Context) -> str:
    """A digest of the judge prompt a chat-model judge is given under `context`."""
    text = "\x00".join((context.judge_prompt, SOURCE_JUDGE_ADDENDUM, JUDGE_USER_TEMPLATE))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def judge_identity(context: Context, judge_model: str) -> JudgeIdentity:
    """The identity of the judge `judge_model` ('offline' or a chat model's name) under `context`."""
    from veracity.offline.judge.version import offline_judge_version

    if judge_model == OFFLINE:
        return JudgeIdentity("offline", OFFLINE, "", offline_judge_version())
    from veracity.calibration.signals import SIGNALS_VERSION

    return JudgeIdentity("chat", judge_model, prompt_version(context),
                         f"{SIGNALS_VERSION}; offline {offline_judge_version()}")


CALIBRATIONS_ENV = "VERACITY_CALIBRATIONS"
"""Environment variable naming the folder of calibration files."""


def calibration_folder() -> Path:
    """Where `veracity calibrate` keeps calibration files and checks look for them.

    `$VERACITY_CALIBRATIONS` when set, else `<user data dir>/veracity/calibration`
    (e.g. ~/.local/share/veracity/calibration).
    """
    configured = os.environ.get(CALIBRATIONS_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("veracity")) / "calibration"
