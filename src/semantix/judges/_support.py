"""Support against sources for the NLI judges (``Grounded``, ``Contradicts``), SummaC-ZS style
as docs/grounded.md describes it: every distinct (source window, claim sentence) pair is scored
once, in length-sorted batches."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from semantix._config import check_threshold
from semantix._text import preview, split_sentences
from semantix.errors import ConfigurationError, JudgeError
from semantix.intents._grounded import SupportDescription
from semantix.judges._base import JudgeIdentity, JudgeRequest, Verdict
from semantix.judges._nli_core import Forward, NLICore, Window

__all__ = ["SUPPORT_JUDGES", "support_request", "support_verdicts"]

#: The judges that can check support, named in the error a judge without the ability raises.
SUPPORT_JUDGES = "QuantizedNLIJudge, NLIJudge, LLMJudge, or an EscalatingJudge whose levels all can"
#: Characters of a window, and of a claim, quoted in a reason.
_WINDOW_PREVIEW, _CLAIM_PREVIEW = 90, 200


def support_request(request: JudgeRequest) -> tuple[str, SupportDescription, float]:
    """``request`` with its description checked to be a `SupportDescription`."""
    output, description, threshold = request
    if not isinstance(description, SupportDescription):
        raise TypeError(
            f"evaluate_support takes requests built by Grounded(...) or Contradicts(...), got "
            f"the description {preview(str(description), 80)}; use evaluate_batch for other "
            "intents"
        )
    if not isinstance(output, str):
        raise TypeError(f"a support check scores text, got output of type {type(output).__name__}")
    return output, description, check_threshold(threshold)


@dataclass(frozen=True, slots=True)
class _Claim:
    """One claim's scores: every window's probabilities, in window order."""

    text: str
    scored: list[dict[str, float]]

    def best(self, label: str) -> int:
        return max(range(len(self.scored)), key=lambda k: self.scored[k].get(label, 0.0))


def support_verdicts(
    core: NLICore,
    requests: Sequence[JudgeRequest],
    forward: Forward,
    *,
    batch_size: int,
    identity: JudgeIdentity,
) -> list[Verdict]:
    """One support (or contradiction) verdict per request; see the module docstring."""
    started = time.perf_counter()
    checked = [support_request(request) for request in requests]
    three_labels = "contradiction" in core.label_map.labels
    windowed: dict[tuple[str, str], list[Window]] = {}
    jobs: list[tuple[list[str], list[tuple[int, Window]]]] = []
    for output, description, _ in checked:
        if description.relation == "contradiction" and not three_labels:
            raise ConfigurationError(
                f"Contradicts(...) needs a model with a contradiction label; {identity} has "
                f"{list(core.label_map.labels)!r}, which cannot tell a contradicted claim from "
                "an unsupported one. Use Grounded(...) (every claim supported) or a three-label "
                "model such as QuantizedNLIJudge('nli-deberta-v3-xsmall')"
            )
        claims = split_sentences(output)
        longest = _longest_claim(core, claims)
        windows: list[tuple[int, Window]] = []
        for position, source in enumerate(description.sources):
            key = (source, longest)
            if key not in windowed:
                windowed[key] = core.windows(source, longest) if longest else []
            windows.extend((position, window) for window in windowed[key])
        jobs.append((claims, windows))
    pairs: dict[tuple[str, str], int] = {}
    for claims, windows in jobs:
        for claim in claims:
            for _, window in windows:
                pairs.setdefault((window.text, claim), len(pairs))
    encodings = core.tokenizer.encode_batch(list(pairs)) if pairs else []
    for (premise, claim), encoding in zip(pairs, encodings, strict=True):
        if len(encoding) > core.max_length:  # pragma: no cover - windows leave a margin
            raise JudgeError(
                f"the source window {preview(premise, 60)} and the claim {preview(claim, 60)} "
                f"make {len(encoding)} tokens, over the model's {core.max_length}; nothing is "
                "ever truncated: report this with the texts"
            )
    rows = core.score(encodings, forward, batch_size)
    elapsed_ms = (time.perf_counter() - started) * 1000.0 / max(1, len(requests))
    verdicts = []
    for (_, description, threshold), (claims, windows) in zip(checked, jobs, strict=True):
        scored = [
            _Claim(claim, [rows[pairs[(window.text, claim)]] for _, window in windows])
            for claim in claims
        ]
        verdict = _verdict(description.relation, scored, windows, threshold, three_labels, identity)
        verdicts.append(replace(verdict, latency_ms=elapsed_ms))
    return verdicts


def _longest_claim(core: NLICore, claims: list[str]) -> str:
    """The claim with the most tokens ('' for none); an error when it leaves no room for a source."""
    if not claims:
        return ""
    counts = [len(e.ids) for e in core.tokenizer.encode_batch(claims, add_special_tokens=False)]
    index = max(range(len(claims)), key=counts.__getitem__)
    if core.max_length - core.pair_specials - counts[index] < 16:
        raise ConfigurationError(
            f"the claim {preview(claims[index], _CLAIM_PREVIEW)} is {counts[index]} tokens long, "
            f"which leaves no room for a source in the model's {core.max_length}-token input; "
            "split the answer into shorter sentences, or check it with an LLMJudge"
        )
    return claims[index]


def _where(windows: Sequence[tuple[int, Window]], k: int) -> str:
    position, window = windows[k]
    return (
        f"source {position + 1}, characters {window.start}-{window.end}: "
        f"{preview(window.text, _WINDOW_PREVIEW)}"
    )


def _contradicted(claim: _Claim, three_labels: bool) -> tuple[bool, float]:
    """(whether the claim's most contradicting window reads it as contradicted, that score)."""
    if not three_labels:
        return False, 0.0
    k = claim.best("contradiction")
    probs = claim.scored[k]
    return max(probs, key=probs.__getitem__) == "contradiction", probs["contradiction"]


def _verdict(
    relation: str,
    claims: list[_Claim],
    windows: Sequence[tuple[int, Window]],
    threshold: float,
    three_labels: bool,
    identity: JudgeIdentity,
) -> Verdict:
    """``support``: the weakest claim's best-window entailment decides; ``contradiction``: the
    strongest contradiction. A claim is named exactly when its own score is on the failing
    (support) or deciding (contradiction) side, so the reason and the verdict agree."""
    support = relation == "support"
    if not claims or not windows:
        missing = "the output has no claim" if not claims else "the sources have no text"
        raise JudgeError(
            f"{identity}: {missing}, so nothing can be {'supported' if support else 'contradicted'}"
            "; a check of nothing is never a pass (nor, negated, a pass). Pass the answer's text "
            "and the documents it was built on"
        )
    label = "entailment" if support else "contradiction"
    best = [claim.best(label) for claim in claims]
    values = [claim.scored[k][label] for claim, k in zip(claims, best, strict=True)]
    decider = (min if support else max)(range(len(claims)), key=values.__getitem__)
    score = min(1.0, max(0.0, values[decider]))
    named = [i for i in range(len(claims)) if (values[i] < threshold) is support]
    if support:
        rule = "score = the weakest claim's best-window entailment"
        lines = []
        for i in named:
            contradicted, value = _contradicted(claims[i], three_labels)
            status = f"contradicted ({value:.2f})" if contradicted else "not supported"
            lines.append(
                f"{preview(claims[i].text, _CLAIM_PREVIEW)} {status}, entailment "
                f"{values[i]:.2f}, best window {_where(windows, best[i])}"
            )
        head = f"{len(named)} of {len(claims)} claims below {threshold:.2f} ({rule}): "
        rest = f"all {len(claims)} claims supported ({rule}); weakest "
        line = "entailment {score:.2f}, best window {where}"
    else:
        rule = "score = the strongest contradiction of any claim by any window"
        lines = [
            f"{preview(claims[i].text, _CLAIM_PREVIEW)} contradiction {values[i]:.2f} by "
            f"{_where(windows, best[i])}"
            for i in named
        ]
        head = f"{len(named)} of {len(claims)} claims contradicted at >= {threshold:.2f} ({rule}): "
        rest = f"no claim contradicted at >= {threshold:.2f} ({rule}); strongest "
        line = "contradiction {score:.2f} by {where}"
    if named:
        reason = head + "; ".join(lines)
    else:
        where = _where(windows, best[decider])
        described = line.format(score=score, where=where)
        reason = f"{rest}{preview(claims[decider].text, _CLAIM_PREVIEW)} {described}"
    k = best[decider]
    return Verdict(
        passed=score >= threshold,
        score=score,
        reason=reason,
        threshold=threshold,
        probabilities=claims[decider].scored[k],
        evidence=windows[k][1].text,
        judge=identity,
    )
