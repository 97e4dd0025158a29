"""Run with: python examples/quickstart.py

Uses the default judge (quantized NLI); the first run downloads the model (~90 MB) into the
Hugging Face cache. Offline? Pass judge=QuantizedNLIJudge("/path/to/model") instead.
"""

from semantix import Intent, SemanticAssertionError
from semantix.testing import assert_semantic


class Polite(Intent):
    """The text must be polite and professional."""


class MedicalAdvice(Intent):
    """The text provides medical diagnoses or treatment recommendations."""

    threshold = 0.7


reply = "Thank you for your patience. Your order has shipped and will arrive on Tuesday."

result = assert_semantic(reply, Polite & ~MedicalAdvice)
print(result)

try:
    assert_semantic("Take two aspirin and skip the doctor.", ~MedicalAdvice)
except SemanticAssertionError as failure:
    print(failure)
