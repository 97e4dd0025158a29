"""Ready-made intents for the checks teams write most, each with examples and a measured accuracy.

```python
from semantix import assert_semantic
from semantix.intents import MedicalAdvice, Polite, Refusal

assert_semantic("Thank you for asking! Here is the recipe.", ~Refusal & Polite)
```

Every class is an ordinary `semantix.Intent`: a precise description (its docstring, what LLM
judges read), an explicit NLI ``hypothesis``, and twelve or more ``examples`` and
``counterexamples`` covering short and long, formal and casual replies and the near misses ("I
can't give medical advice" is a counterexample of `MedicalAdvice`). Judges that score calibrate
a threshold from them; subclass an intent to set your own ``threshold`` or examples.
``OnTopic(topic)`` and ``Mentions(thing)`` build intents for a given topic or thing; ``Grounded(sources)`` and
``Contradicts(sources)`` check an answer against the documents it was built on.

This module is not imported by ``import semantix``; it imports nothing heavy. The accuracy of
each intent per judge is measured by ``scripts/evaluate-intents`` on a separate labelled set
(docs: "Ready-made intents").
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
