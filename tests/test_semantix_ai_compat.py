"""Constructor spellings of semantix-ai that keep working (issue 16: their code must run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from semantix import (
    CachingJudge,
    EmbeddingJudge,
    FakeJudge,
    Intent,
    LLMJudge,
    NLIJudge,
    assert_semantic,
)


class Polite(Intent):
    """The text is polite."""


def test_model_name_is_a_spelling_of_model_for_nli(tmp_path: Path) -> None:
    assert NLIJudge(model_name=str(tmp_path)).model == str(tmp_path)
    with pytest.raises(TypeError, match="NLIJudge got both model=.* and model_name="):
        NLIJudge(model=str(tmp_path), model_name="other")


def test_model_name_is_a_spelling_of_model_for_embeddings(tmp_path: Path) -> None:
    # identity before loading names the model it was given
    assert str(tmp_path) in str(EmbeddingJudge(model_name=str(tmp_path)).identity)
    with pytest.raises(TypeError, match="EmbeddingJudge got both model=.* and model_name="):
        EmbeddingJudge(model=str(tmp_path), model_name="other")


def test_llm_judge_takes_the_key_as_its_second_positional_argument() -> None:
    pytest.importorskip("openai")
    judge = LLMJudge("gpt-4o-mini", "sk-test-0123456789", "http://127.0.0.1:9/v1")
    assert judge.base_url == "http://127.0.0.1:9/v1"
    assert "sk-test-0123456789" not in repr(judge)  # still masked


def test_caching_judge_maxsize_bounds_the_memo() -> None:
    inner = FakeJudge(lambda output, description: 0.9)
    judge = CachingJudge(inner, maxsize=2)
    for output in ("a", "b", "c", "a"):
        assert_semantic(output, Polite, judge=judge, threshold=0.5)
    # "a" fell out of a two-entry memo when "c" came in, so it was judged again
    assert [call[0] for call in inner.calls] == ["a", "b", "c", "a"]
