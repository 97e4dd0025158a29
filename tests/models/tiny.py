"""Tiny random-weight models built at test time, in the exact layouts the judges load.

Every builder runs the real stack: a tokenizer trained on the spot with ``tokenizers``, a
transformers model (2 layers, hidden 32) saved with ``save_pretrained``, exported to ONNX and
quantized to int8 by :func:`semantix.judges._export.export_model`. A build takes about a second once
torch is imported.

Public API (also used by the embedding tests):

- :func:`train_tokenizer` — a WordPiece (BERT-style) or byte-level BPE (RoBERTa-style)
  ``tokenizers.Tokenizer`` trained on :data:`CORPUS`;
- :func:`build_tiny_hf_model` — a transformers sequence-classification model directory;
- :func:`build_tiny_nli_model` — the same, exported: ``model.onnx`` + ``model_quantized.onnx``;
- :func:`build_tiny_sentence_transformer` — a sentence-transformers directory (safetensors, no
  ONNX), as a user has one at hand;
- :func:`make_hf_cache` — a pre-populated Hugging Face cache (``models--owner--name/...``).
"""

from __future__ import annotations

import json
import random
import shutil
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

Arch = Literal["bert", "deberta", "roberta"]

#: The usual NLI label order of the cross-encoder models.
DEFAULT_ID2LABEL: dict[int, str] = {0: "contradiction", 1: "entailment", 2: "neutral"}

_SUBJECTS = ["the text", "the reply", "the answer", "the agent", "our team", "the customer", "it"]
_VERBS = ["is", "was", "seems", "remains", "sounds", "looks"]
_ADJECTIVES = [
    "polite",
    "rude",
    "professional",
    "friendly",
    "angry",
    "helpful",
    "short",
    "long",
    "clear",
    "vague",
    "kind",
    "formal",
    "calm",
    "happy",
    "sorry",
    "grateful",
]
_OBJECTS = [
    "the refund",
    "the delay",
    "the order",
    "the price",
    "a discount",
    "the weather",
    "medical advice",
    "the banana",
    "a password",
    "the invoice",
    "the manager",
    "support",
]
_ACTIONS = [
    "mentions",
    "apologizes for",
    "contains",
    "offers",
    "explains",
    "refuses",
    "thanks us for",
    "describes",
    "avoids",
    "asks about",
]


def _corpus(size: int = 400, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    sentences = []
    for _ in range(size):
        if rng.random() < 0.5:
            words = [rng.choice(_SUBJECTS), rng.choice(_VERBS), rng.choice(_ADJECTIVES)]
        else:
            words = [rng.choice(_SUBJECTS), rng.choice(_ACTIONS), rng.choice(_OBJECTS)]
        sentence = " ".join(words)
        sentences.append(sentence[0].upper() + sentence[1:] + rng.choice([".", "!", "?"]))
    return sentences


#: A few hundred sentences covering the words the tests use.
CORPUS: list[str] = _corpus()


def train_tokenizer(arch: Arch = "bert", *, vocab_size: int = 400) -> Any:
    """A ``tokenizers.Tokenizer`` trained on :data:`CORPUS`, with the arch's pair template."""
    from tokenizers import (
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )

    if arch == "roberta":
        tokenizer = Tokenizer(models.BPE(unk_token=None))
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tokenizer.decoder = decoders.ByteLevel()
        specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            special_tokens=specials,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
        tokenizer.train_from_iterator(CORPUS, trainer=trainer)
        tokenizer.post_processor = processors.RobertaProcessing(
            ("</s>", tokenizer.token_to_id("</s>")), ("<s>", tokenizer.token_to_id("<s>"))
        )
        return tokenizer
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size, special_tokens=specials, show_progress=False
    )
    tokenizer.train_from_iterator(CORPUS, trainer=trainer)
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )
    return tokenizer


def _tokenizer_config(arch: Arch, max_length: int) -> dict[str, Any]:
    if arch == "roberta":
        return {
            "tokenizer_class": "RobertaTokenizerFast",
            "model_max_length": max_length,
            "bos_token": "<s>",
            "eos_token": "</s>",
            "sep_token": "</s>",
            "cls_token": "<s>",
            "unk_token": "<unk>",
            "pad_token": "<pad>",
            "mask_token": "<mask>",
        }
    return {
        "tokenizer_class": "BertTokenizerFast",
        "model_max_length": max_length,
        "do_lower_case": True,
        "unk_token": "[UNK]",
        "sep_token": "[SEP]",
        "pad_token": "[PAD]",
        "cls_token": "[CLS]",
        "mask_token": "[MASK]",
    }


def build_tiny_hf_model(
    out_dir: str | Path,
    *,
    arch: Arch = "bert",
    id2label: Mapping[int, str] | None = None,
    head: Literal["random", "bias", "wide"] = "random",
    bias_label: str | None = None,
    head_std: float = 0.2,
    max_length: int = 64,
    seed: int = 0,
) -> Path:
    """Save a 2-layer hidden-32 sequence-classification model and its tokenizer.

    Args:
        arch: "bert" (token_type_ids), "deberta" (DeBERTa-v2/v3 config, relative attention,
            no token types) or "roberta" (byte-level BPE, no token types).
        id2label: label names in output order (default: contradiction, entailment, neutral).
        head: "random" (transformers' init), "bias" (classifier weight 0 and a bias of +4 on
            ``bias_label``: every input gets the same, quantization-proof probabilities) or
            "wide" (every linear layer re-initialised with std ``head_std``, 0.2 by default,
            so scores vary by input by ~0.2 while int8 stays within ~0.01 of fp32).
        max_length: the model's position limit (and ``model_max_length``), small so tests
            can exercise windows with short texts.
    """
    with warnings.catch_warnings():
        # transformers/torch emit deprecation notices on import and init that are not ours.
        warnings.simplefilter("ignore")
        return _build_hf_model(
            Path(out_dir),
            arch,
            dict(id2label or DEFAULT_ID2LABEL),
            head,
            bias_label,
            head_std,
            max_length,
            seed,
        )


def _build_hf_model(
    out: Path,
    arch: Arch,
    labels: dict[int, str],
    head: str,
    bias_label: str | None,
    head_std: float,
    max_length: int,
    seed: int,
) -> Path:
    import torch
    import transformers

    out.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer(arch)
    tokenizer.save(str(out / "tokenizer.json"))
    (out / "tokenizer_config.json").write_text(
        json.dumps(_tokenizer_config(arch, max_length), indent=2)
    )
    common: dict[str, Any] = {
        "vocab_size": tokenizer.get_vocab_size(),
        "hidden_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 64,
        "num_labels": len(labels),
        "id2label": labels,
        "label2id": {name: index for index, name in labels.items()},
    }
    torch.manual_seed(seed)
    if arch == "bert":
        config = transformers.BertConfig(max_position_embeddings=max_length, **common)
        model = transformers.BertForSequenceClassification(config)
    elif arch == "roberta":
        config = transformers.RobertaConfig(
            max_position_embeddings=max_length + 2,
            pad_token_id=tokenizer.token_to_id("<pad>"),
            bos_token_id=tokenizer.token_to_id("<s>"),
            eos_token_id=tokenizer.token_to_id("</s>"),
            type_vocab_size=1,
            **common,
        )
        model = transformers.RobertaForSequenceClassification(config)
    elif arch == "deberta":
        config = transformers.DebertaV2Config(
            max_position_embeddings=max_length,
            type_vocab_size=0,
            relative_attention=True,
            position_buckets=32,
            pos_att_type=["p2c", "c2p"],
            position_biased_input=False,
            pooler_hidden_size=32,
            **common,
        )
        model = transformers.DebertaV2ForSequenceClassification(config)
    else:
        raise ValueError(f"arch must be 'bert', 'deberta' or 'roberta', got {arch!r}")
    classifier = model.classifier
    if isinstance(classifier, torch.nn.Linear):
        final = classifier
    else:  # RoBERTa: dense -> out_proj
        final = classifier.out_proj
    with torch.no_grad():
        if head == "bias":
            if bias_label not in labels.values():
                raise ValueError(f"bias_label must be one of {sorted(labels.values())}")
            final.weight.zero_()
            final.bias.zero_()
            index = next(i for i, name in labels.items() if name == bias_label)
            final.bias[index] = 4.0
        elif head == "wide":
            for module in model.modules():
                if isinstance(module, torch.nn.Linear):
                    module.weight.normal_(0.0, head_std)
    model.save_pretrained(out)
    return out


def build_tiny_nli_model(
    out_dir: str | Path,
    arch: Arch = "bert",
    *,
    id2label: Mapping[int, str] | None = None,
    head: Literal["random", "bias", "wide"] = "random",
    bias_label: str | None = None,
    head_std: float = 0.2,
    max_length: int = 64,
    seed: int = 0,
    quantize: bool = True,
) -> Path:
    """A tiny NLI model directory the judges load: the HF files plus ONNX fp32 and int8.

    Same arguments as :func:`build_tiny_hf_model`. The transformers weights stay in the
    directory, so :class:`semantix.NLIJudge` loads it too.
    """
    from semantix.judges._export import export_model

    out = build_tiny_hf_model(
        out_dir,
        arch=arch,
        id2label=id2label,
        head=head,
        bias_label=bias_label,
        head_std=head_std,
        max_length=max_length,
        seed=seed,
    )
    export_model(str(out), out, quantize=quantize, overwrite=True)  # beside the HF files
    return out


def build_tiny_sentence_transformer(
    out_dir: str | Path, *, pooling: str = "mean", max_length: int = 64, seed: int = 0
) -> Path:
    """A 2-layer hidden-32 BERT saved as sentence-transformers saves a model: safetensors,
    tokenizer, ``modules.json``, ``sentence_bert_config.json`` and ``1_Pooling/config.json``
    (``pooling``: "mean", "cls" or another sentence-transformers pooling mode). No ONNX file."""
    import torch
    import transformers

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer("bert")
    tokenizer.save(str(out / "tokenizer.json"))
    (out / "tokenizer_config.json").write_text(json.dumps(_tokenizer_config("bert", max_length)))
    torch.manual_seed(seed)
    config = transformers.BertConfig(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=max_length,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        transformers.BertModel(config).save_pretrained(out)
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {
            "idx": 1,
            "name": "1",
            "path": "1_Pooling",
            "type": "sentence_transformers.models.Pooling",
        },
        {
            "idx": 2,
            "name": "2",
            "path": "2_Normalize",
            "type": "sentence_transformers.models.Normalize",
        },
    ]
    (out / "modules.json").write_text(json.dumps(modules))
    (out / "sentence_bert_config.json").write_text(
        json.dumps({"max_seq_length": max_length, "do_lower_case": False})
    )
    (out / "1_Pooling").mkdir(exist_ok=True)
    modes = ("cls_token", "mean_tokens", "max_tokens", "mean_sqrt_len_tokens")
    settings = {
        f"pooling_mode_{mode}": mode == f"{pooling}_token" or mode == f"{pooling}_tokens"
        for mode in modes
    }
    (out / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": 32, **settings})
    )
    return out


def make_hf_cache(
    cache_dir: str | Path,
    repo_id: str,
    model_dir: str | Path,
    *,
    revision: str = "0123456789abcdef0123456789abcdef01234567",
    ref: str = "main",
) -> Path:
    """Lay ``model_dir`` out as the Hugging Face cache would after a download.

    Creates ``models--owner--name/snapshots/<revision>/`` (a copy of the files) and
    ``refs/<ref>`` holding the revision. Returns the snapshot directory.
    """
    repo_dir = Path(cache_dir) / ("models--" + repo_id.replace("/", "--"))
    snapshot = repo_dir / "snapshots" / revision
    snapshot.mkdir(parents=True, exist_ok=True)
    for item in Path(model_dir).iterdir():
        if item.is_file():
            shutil.copyfile(item, snapshot / item.name)
    (repo_dir / "refs").mkdir(exist_ok=True)
    (repo_dir / "refs" / ref).write_text(revision)
    return snapshot
