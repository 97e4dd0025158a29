"""Ready-made intents for the checks teams write most, each with examples and a measured accuracy.

```python
from semantix import assert_semantic
from semantix.intents import MedicalAdvice, Polite, Refusal

assert_semantic("Thank you for asking! Here is the recipe.", ~Refusal & Polite)
```

Every class is an ordinary `semantix.Intent` with a precise description, an NLI ``hypothesis``
and twelve or more ``examples`` and ``counterexamples`` (near misses included); subclass one to
set your own ``threshold`` or examples. ``OnTopic(topic)``, ``Mentions(thing)``,
``Grounded(sources)`` and ``Contradicts(sources)`` build intents. Not imported by ``import
semantix``; the accuracy per judge is measured by ``scripts/evaluate-intents`` (docs: "Ready-made
intents").
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
