"""Verdicts as data: one record per (experiment, claim, reading), rendered into the reports.

Every experiment's report code returns :class:`Verdict` records; ``results/report.md``,
``results/verdicts.csv`` and the HTML report are renderings of them, and the tests assert on
the records. The vocabulary:

* **reproduced** — the number is within the stated tolerance / the claim holds as stated;
* **partly reproduced** — the claim holds with exceptions that the detail lists;
* **inconclusive** — the evidence cannot decide: the effect is within the noise, or the
  verdict rests on fewer repetitions than the evidence rule requires;
* **not reproduced** — the measurement contradicts the paper.

Evidence rule (:func:`apply_evidence_rule`): a claim judged over repetitions states in
``config/paper_reference.yaml`` how many it needs (``min_repetitions``, on the claim or on its
experiment). Below that number a decisive verdict becomes ``inconclusive``: a verdict is never
more generous than its evidence.

Robustness (:func:`assign_robustness`): an experiment run under several readings of an
ambiguous protocol gets one verdict per reading; a claim is ``robust`` when every reading gives
the same verdict, ``fragile`` when they differ (the detail names the readings for and
against) and ``single`` when there is only one reading.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence

import pandas as pd
import yaml

__all__ = [
    "INCONCLUSIVE",
    "NOT_REPRODUCED",
    "PARTLY",
    "REPRODUCED",
    "ROBUSTNESS",
    "VERDICTS",
    "VERDICT_COLUMNS",
    "Section",
    "Verdict",
    "apply_evidence_rule",
    "assign_robustness",
    "claim_verdict",
    "paper_reference",
    "required_repetitions",
    "verdicts_frame",
    "verdicts_from_frame",
]

REPRODUCED = "reproduced"
PARTLY = "partly reproduced"
INCONCLUSIVE = "inconclusive"
NOT_REPRODUCED = "not reproduced"
VERDICTS = (REPRODUCED, PARTLY, INCONCLUSIVE, NOT_REPRODUCED)

ROBUST = "robust"
FRAGILE = "fragile"
SINGLE = "single"
ROBUSTNESS = (ROBUST, FRAGILE, SINGLE)

PRIMARY = "primary"

VERDICT_COLUMNS = [
    "paper",
    "experiment",
    "claim_id",
    "claim",
    "source",
    "protocol",
    "primary",
    "verdict",
    "robustness",
    "check_verdict",
    "scale",
    "n_repetitions",
    "min_repetitions",
    "paper_value",
    "measured",
    "tolerance",
    "detail",
]


def _text(value) -> str:
    """Values of the free-form columns as text (numbers with up to 4 significant digits)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.4g}"
    return str(value).strip()


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The judgement of one claim of a paper under one reading of its protocol.

    Parameters
    ----------
    experiment : str
        Workflow target the claim belongs to (``ridge``, ``dcm_synthetic``, ...).
    claim_id : str
        Key of the claim in ``config/paper_reference.yaml``.
    claim : str
        The claim as the paper makes it.
    verdict : str
        One of :data:`VERDICTS`.
    detail : str
        What was measured and why the verdict follows (one paragraph of Markdown).
    paper : str
        Key of the paper in ``config/paper_reference.yaml`` (``oblivious``, ``dcm``, ...).
    source : str
        Where the paper makes the claim (section, table, figure).
    protocol : str
        The reading of the protocol (variant, protocol × grid, ...); ``"primary"`` when the
        experiment has a single reading.
    primary : bool
        Whether this is the reading the scorecard uses.
    scale : str
        The config's scale name (``quick``, ``paper``, ...).
    n_repetitions : int or None
        Independent repetitions the verdict rests on (``None``: exact or closed-form check).
    min_repetitions : int or None
        Repetitions the evidence rule requires for a decisive verdict.
    paper_value, measured, tolerance : str
        The paper's number, ours, and the tolerance of the comparison (text: a claim may
        compare several numbers).
    robustness : str
        One of :data:`ROBUSTNESS`, set by :func:`assign_robustness`.
    check_verdict : str
        What the check itself read before the evidence rule (equal to ``verdict`` unless the
        rule demoted it): the preview of a small run.
    """

    experiment: str
    claim_id: str
    claim: str
    verdict: str
    detail: str
    paper: str = ""
    source: str = ""
    protocol: str = PRIMARY
    primary: bool = True
    scale: str = ""
    n_repetitions: int | None = None
    min_repetitions: int | None = None
    paper_value: str = ""
    measured: str = ""
    tolerance: str = ""
    robustness: str = SINGLE
    check_verdict: str = ""

    def __post_init__(self):
        if not self.check_verdict:
            object.__setattr__(self, "check_verdict", self.verdict)
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}.")
        if self.check_verdict not in VERDICTS:
            raise ValueError(
                f"check_verdict must be one of {VERDICTS}, got {self.check_verdict!r}."
            )
        if self.robustness not in ROBUSTNESS:
            raise ValueError(f"robustness must be one of {ROBUSTNESS}, got {self.robustness!r}.")
        for name in ("paper_value", "measured", "tolerance"):
            object.__setattr__(self, name, _text(getattr(self, name)))
        for name in ("n_repetitions", "min_repetitions"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, float) and math.isnan(value)):
                object.__setattr__(self, name, int(value))
            else:
                object.__setattr__(self, name, None)

    def replace(self, **changes) -> Verdict:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    @property
    def decisive(self) -> bool:
        """Whether the verdict takes a side (anything but inconclusive)."""
        return self.verdict != INCONCLUSIVE


def required_repetitions(experiment_reference: Mapping, claim: Mapping) -> int | None:
    """Repetitions a claim needs for a decisive verdict (the claim's, else its experiment's).

    Parameters
    ----------
    experiment_reference : mapping
        The experiment's entry in ``config/paper_reference.yaml``.
    claim : mapping
        The claim's entry.

    Returns
    -------
    int or None
        ``min_repetitions`` of the claim, else of the experiment; ``None`` when neither states
        one (the claim is not judged over repetitions).
    """
    value = claim.get("min_repetitions", experiment_reference.get("min_repetitions"))
    return None if value is None else int(value)


def apply_evidence_rule(verdict: Verdict) -> Verdict:
    """Demote a decisive verdict to ``inconclusive`` when it rests on too few repetitions.

    The rule: a verdict judged over repetitions takes a side only when
    ``n_repetitions >= min_repetitions``; below, the evidence cannot support it.
    """
    if (
        verdict.min_repetitions is None
        or verdict.n_repetitions is None
        or verdict.n_repetitions >= verdict.min_repetitions
        or not verdict.decisive
    ):
        return verdict
    detail = (
        f"{verdict.detail.rstrip()} At {verdict.n_repetitions} repetitions this would read"
        f" *{verdict.verdict}*; the evidence rule needs at least {verdict.min_repetitions}"
        " (`min_repetitions` in `config/paper_reference.yaml`), so the verdict is inconclusive"
        " at this scale."
    )
    return verdict.replace(verdict=INCONCLUSIVE, detail=detail, check_verdict=verdict.verdict)


def claim_verdict(
    experiment_reference: Mapping,
    claim_id: str,
    verdict: str,
    detail: str,
    *,
    experiment: str,
    paper: str,
    scale: str,
    protocol: str = PRIMARY,
    primary: bool = True,
    n_repetitions: int | None = None,
    paper_value="",
    measured="",
    tolerance="",
) -> Verdict:
    """The :class:`Verdict` of a claim of ``paper_reference.yaml``, after the evidence rule.

    Parameters
    ----------
    experiment_reference : mapping
        The experiment's entry in ``config/paper_reference.yaml``; its ``claims`` mapping
        holds ``claim_id`` with at least ``text`` and ``source``.
    claim_id : str
        Key of the claim.
    verdict, detail : str
        The check's outcome before the evidence rule.
    experiment, paper, scale, protocol, primary, n_repetitions, paper_value, measured, tolerance
        As in :class:`Verdict`.
    """
    claims = experiment_reference.get("claims", {})
    if claim_id not in claims:
        raise KeyError(f"claim {claim_id!r} is not in the reference's claims {sorted(claims)}.")
    claim = claims[claim_id]
    record = Verdict(
        experiment=experiment,
        claim_id=claim_id,
        claim=" ".join(str(claim["text"]).split()),
        verdict=verdict,
        detail=detail,
        paper=paper,
        source=str(claim.get("source", "")),
        protocol=protocol,
        primary=primary,
        scale=scale,
        n_repetitions=n_repetitions,
        min_repetitions=(
            None if n_repetitions is None else required_repetitions(experiment_reference, claim)
        ),
        paper_value=paper_value,
        measured=measured,
        tolerance=tolerance,
    )
    return apply_evidence_rule(record)


def assign_robustness(verdicts: Iterable[Verdict]) -> list[Verdict]:
    """Set ``robustness`` of every record from the readings of its (experiment, claim).

    ``single`` when the claim was judged under one reading, ``robust`` when every reading
    gives the same verdict, ``fragile`` otherwise; a fragile primary record's detail then
    names the readings for and against its verdict. Order is kept.
    """
    verdicts = list(verdicts)
    groups: dict[tuple[str, str], list[Verdict]] = {}
    for record in verdicts:
        groups.setdefault((record.experiment, record.claim_id), []).append(record)
    out = []
    for record in verdicts:
        group = groups[(record.experiment, record.claim_id)]
        readings = {r.protocol for r in group}
        if len(readings) <= 1:
            out.append(record.replace(robustness=SINGLE))
            continue
        if len({r.verdict for r in group}) == 1:
            out.append(record.replace(robustness=ROBUST))
            continue
        agree = [r.protocol for r in group if r.verdict == record.verdict]
        differ = [f"{r.protocol} ({r.verdict})" for r in group if r.verdict != record.verdict]
        detail = record.detail
        if record.primary and " Fragile: " not in detail:
            detail = (
                f"{detail.rstrip()} Fragile: {record.verdict} under {', '.join(agree)};"
                f" other readings give {', '.join(differ)}."
            )
        out.append(record.replace(robustness=FRAGILE, detail=detail))
    return out


def verdicts_frame(verdicts: Iterable[Verdict]) -> pd.DataFrame:
    """The records as a table with :data:`VERDICT_COLUMNS` (``results/verdicts.csv``)."""
    rows = [dataclasses.asdict(record) for record in verdicts]
    frame = pd.DataFrame(rows, columns=VERDICT_COLUMNS)
    for column in ("n_repetitions", "min_repetitions"):
        frame[column] = frame[column].astype("Int64")
    return frame


def verdicts_from_frame(frame: pd.DataFrame) -> list[Verdict]:
    """Records back from a table written by :func:`verdicts_frame`."""
    fields = {field.name for field in dataclasses.fields(Verdict)}
    records = []
    for row in frame.to_dict("records"):
        values = {key: value for key, value in row.items() if key in fields}
        for key in ("n_repetitions", "min_repetitions"):
            if values.get(key) is pd.NA:
                values[key] = None
        for key, value in list(values.items()):
            if (
                isinstance(value, float)
                and math.isnan(value)
                and key
                not in (
                    "n_repetitions",
                    "min_repetitions",
                )
            ):
                values[key] = ""
        values["primary"] = str(values.get("primary", True)).lower() in ("true", "1")
        records.append(Verdict(**values))
    return records


@dataclasses.dataclass
class Section:
    """One experiment's part of the report: its verdicts and the Markdown that supports them.

    Parameters
    ----------
    experiment : str
        Workflow target (also the section's anchor in ``report.md``).
    title : str
        Heading of the section.
    verdicts : sequence of Verdict
        Every claim under every reading.
    body : str
        Markdown after the verdicts: tables, notes, figure references.
    intro : str
        Markdown between the heading and the verdicts (what was run).
    """

    experiment: str
    title: str
    verdicts: Sequence[Verdict]
    body: str = ""
    intro: str = ""

    def to_dict(self) -> dict:
        """JSON-serialisable form (the per-experiment ``results/report/<experiment>.json``)."""
        return {
            "experiment": self.experiment,
            "title": self.title,
            "intro": self.intro,
            "body": self.body,
            "verdicts": [dataclasses.asdict(record) for record in self.verdicts],
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> Section:
        """Inverse of :meth:`to_dict`."""
        return cls(
            experiment=data["experiment"],
            title=data["title"],
            intro=data.get("intro", ""),
            body=data.get("body", ""),
            verdicts=[Verdict(**record) for record in data["verdicts"]],
        )


def paper_reference(path, *keys) -> Mapping:
    """One block of ``config/paper_reference.yaml``: the papers' numbers and the thresholds.

    Parameters
    ----------
    path : path-like
        The reference file.
    *keys : str
        The block's path in the file, e.g. ``"oblivious", "ridge"``.
    """
    with open(path, encoding="utf-8") as handle:
        block = yaml.safe_load(handle)
    for key in keys:
        block = block[key]
    return block
