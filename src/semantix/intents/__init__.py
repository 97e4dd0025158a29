"""Ready-made intents for the checks teams write most, each with examples and a measured accuracy.

```python
from semantix import assert_semantic
from semantix.intents import MedicalAdvice, Polite, Refusal

assert_semantic("Thank you for asking! Here is the recipe.", ~Refusal & Polite)
```

Each is an ordinary `semantix.Intent` with a description, an NLI ``hypothesis`` and twelve or
more ``examples`` and ``counterexamples``; ``OnTopic``, ``Mentions``, ``Grounded`` and
``Contradicts`` build intents. Not imported by ``import semantix``; accuracy: docs/intents-library.md.
"""

from __future__ import annotations

from semantix.intents._conduct import (
    Apology,
    AsksClarifyingQuestion,
    Polite,
    Profanity,
    Refusal,
    Rude,
)
from semantix.intents._content import (
    FinancialAdvice,
    LegalAdvice,
    MedicalAdvice,
    PersonalData,
    SystemPromptLeak,
)
from semantix.intents._factories import MentionIntent, Mentions, OnTopic, TopicIntent
from semantix.intents._grounded import Contradicts, Grounded, SupportDescription, SupportIntent

__all__ = [
    "Apology",
    "AsksClarifyingQuestion",
    "Contradicts",
    "FinancialAdvice",
    "Grounded",
    "LegalAdvice",
    "MedicalAdvice",
    "MentionIntent",
    "Mentions",
    "OnTopic",
    "PersonalData",
    "Polite",
    "Profanity",
    "Refusal",
    "Rude",
    "SupportDescription",
    "SupportIntent",
    "SystemPromptLeak",
    "TopicIntent",
]
