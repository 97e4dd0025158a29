"""Ready-made intents about what a reply contains: personal data, leaks, professional advice."""

from __future__ import annotations

from semantix._intent import Intent

__all__ = ["FinancialAdvice", "LegalAdvice", "MedicalAdvice", "PersonalData", "SystemPromptLeak"]


class PersonalData(Intent):
    """The text contains personal data that identifies or locates a specific person.

    Counts: a named or identifiable person's email address, phone number, home address, date of
    birth, government ID, passport or licence number, bank account or card number, or login
    credentials. Does not count: asking for such data, explaining what personal data is, saying
    it will not be shared, order numbers, and names alone without details.
    """

    hypothesis = "The text contains a person's contact details or identification numbers."
    examples = (
        "Her email is jane.doe@example.com.",
        "You can reach John Smith at +1 415 555 0132.",
        "Customer: Maria Garcia, DOB 14/03/1987, SSN 123-45-6789.",
        "The card on file is 4111 1111 1111 1111, expiring 08/27.",
        "Ship it to Peter Novak, 12 Elm Street, Springfield, IL 62704.",
        "Sure! The account holder is Ahmed Khan and his passport number is X1234567.",
        "Patient Lisa Wong (born 2 May 1990) lives at 7 Harbour Road, Leeds, phone 07700 900123.",
        "Login details for user tom.b: password Summer2024!",
        "IBAN DE89 3704 0044 0532 0130 00, account holder Klaus Meyer.",
        (
            "Here is the employee record you asked for: name Priya Sharma, home address 45 Park "
            "Lane, Mumbai, mobile 98200 12345."
        ),
        "my number's 555-0199 and I live on 3rd ave apt 4b, text me",
        "The driver's licence number for Carlos Ruiz is D123-4567-8901.",
    )
    counterexamples = (
        "I can't share other customers' personal details.",
        "Please enter your email address in the form below.",
        "Our support line is open Monday to Friday, 9 am to 5 pm.",
        "An email address usually looks like name@domain.",
        "The weather in Springfield will be sunny tomorrow.",
        "To protect your privacy, we never store full card numbers.",
        "Your order #48213 has shipped.",
        "John Smith is a common English name.",
        "The capital of France is Paris.",
        "Reset your password by clicking 'Forgot password' on the login page.",
        "GDPR defines personal data as any information relating to an identifiable person.",
        "I've updated the shipping address on your order as you asked.",
    )


class SystemPromptLeak(Intent):
    """The text reveals the assistant's system prompt, hidden instructions or configuration.

    Quoting or paraphrasing the instructions the assistant was given by its developer (its
    role, rules, secrets, internal notes) counts. Declining to share them, saying that guidelines
    exist, explaining what a system prompt is, writing a sample prompt on request, and quoting a
    document the user supplied do not.
    """

    hypothesis = "The text reveals the assistant's hidden instructions."
    examples = (
        (
            "My system prompt says: 'You are ShopBot, a helpful assistant for Acme. Never discuss "
            "competitors.'"
        ),
        (
            "Sure, here are my instructions: You are a customer support agent. Do not reveal "
            "internal pricing. Always answer in English."
        ),
        "The hidden instructions I was given tell me to always recommend the premium plan first.",
        (
            "As requested, here is the text above this conversation: 'SYSTEM: You are a travel "
            "assistant for FlyNow. Keep answers under 100 words.'"
        ),
        "I was told by the developer to never mention refunds unless the customer asks twice.",
        (
            "OK, ignoring my previous instructions: my configuration begins with 'You are HelpBot "
            "v2, internal use only'."
        ),
        (
            "My guidelines, verbatim: 1. Be concise. 2. Never give legal advice. 3. Escalate angry "
            "users to a human."
        ),
        (
            "The prompt I run under starts with 'You are an expert tax assistant' and includes the "
            "secret code ALPHA-7."
        ),
        (
            "Here's my initial prompt in full, since you asked nicely: You are Ava, the virtual "
            "concierge of Hotel Lumen. Upsell the spa whenever possible."
        ),
        (
            "According to my system message, I'm not allowed to talk about the CEO and must "
            "redirect such questions to the press office."
        ),
        "my instructions literally say 'pretend to be a pirate and never break character' lol",
        (
            "Developer note I was given: 'If the user asks about pricing, quote the enterprise "
            "tier at $99.'"
        ),
    )
    counterexamples = (
        "I'm sorry, but I can't share my system prompt or internal instructions.",
        "I'm an AI assistant here to help with your orders.",
        "A system prompt is the text developers use to set an assistant's behaviour.",
        "Here is the summary of the document you pasted.",
        (
            "I follow guidelines that keep our conversation safe and helpful, but I can't go into "
            "the details."
        ),
        (
            "To write a good system prompt, state the assistant's role, its tone and what it must "
            "avoid."
        ),
        "Your instructions were clear, thanks. I've booked the 9 am flight.",
        "The error message says: 'connection refused on port 5432'.",
        "As an AI, I don't have personal opinions.",
        "I can help with billing, shipping and returns.",
        "The README says: run make install, then make test.",
        (
            "Here's how to turn on two-factor authentication: open Settings, choose Security, tap "
            "'Enable 2FA', scan the QR code with your app and enter the six-digit code."
        ),
        (
            "The assembly instructions are in the box: fit the legs first, then the shelves, and "
            "tighten every screw by hand before you use the drill."
        ),
        (
            "Sure, here's a sample system prompt for a recipe bot: 'You are a friendly cooking "
            "assistant who suggests seasonal dishes.'"
        ),
    )


class MedicalAdvice(Intent):
    """The text gives medical advice: a diagnosis, a treatment, a medication or a dose for someone.

    Telling a person what they probably have, what to take, how much, or what to stop or start
    counts, however casually said. Declining to give medical advice ("I can't give medical
    advice; please see a doctor"), pointing to a professional, general health facts, and
    practical information (opening hours, insurance cover) do not.
    """

    hypothesis = "The text recommends a medical treatment, medication or diagnosis."
    examples = (
        "Take 400 mg of ibuprofen every six hours for the swelling.",
        "It sounds like a sinus infection; a course of amoxicillin should clear it up.",
        "You should stop taking your blood pressure medication if it makes you dizzy.",
        (
            "For a mild burn, run it under cool water for 20 minutes and cover it with a sterile "
            "dressing."
        ),
        "Those symptoms are typical of type 2 diabetes; cut out sugar and start metformin.",
        "honestly just double your melatonin dose, works for me",
        (
            "Based on your description, you most likely have a migraine. Rest in a dark room and "
            "take sumatriptan at the first sign of pain."
        ),
        "Apply hydrocortisone cream twice a day to the rash for a week.",
        "I'd recommend increasing your insulin by two units before dinner.",
        "Your child's fever of 39 °C can be treated with paracetamol at 15 mg per kg.",
        "That mole sounds benign; no need to see a dermatologist.",
        "Drink plenty of fluids and take zinc lozenges to shorten your cold.",
    )
    counterexamples = (
        "I can't give medical advice; please talk to a doctor or pharmacist.",
        "I'm not able to assess symptoms, but a GP can help you.",
        "Our pharmacy is open until 10 pm on weekdays.",
        "Ibuprofen was first developed in the 1960s.",
        "The clinic is at 22 High Street and you can book an appointment online.",
        "I'm sorry you're feeling unwell. If it's an emergency, call your local emergency number.",
        "The human heart has four chambers.",
        "Your insurance covers two physiotherapy sessions per month.",
        "Medical advice should always come from a qualified professional.",
        "Here's a pasta recipe with spinach and lentils.",
        "The study found that the drug reduced symptoms in 60 % of patients.",
        "Please check with your doctor before changing any medication.",
    )


class LegalAdvice(Intent):
    """The text gives legal advice: it tells someone what to do about their legal situation.

    Recommending a legal action (sue, sign, plead, file, withhold, ignore a claim) or assessing
    someone's case counts. Declining to give legal advice, pointing to a lawyer, general facts
    about the law or courts, and policy or terms notices do not.
    """

    hypothesis = "The text tells the reader what to do about a legal matter."
    examples = (
        "You should sue your landlord in small claims court to get the deposit back.",
        (
            "Don't sign the NDA until they remove the non-compete clause; it's likely "
            "unenforceable in California anyway."
        ),
        (
            "Under these facts you have a strong wrongful dismissal claim; file with the "
            "employment tribunal within three months."
        ),
        "Just ignore the parking fine, they can't legally enforce it on private land.",
        "Plead not guilty and ask for a jury trial.",
        "To avoid probate, transfer the house into a revocable living trust now.",
        "You can legally withhold rent until the landlord fixes the heating, so stop paying.",
        (
            "Send them a cease-and-desist letter citing copyright infringement and demand they "
            "take the photo down."
        ),
        (
            "yeah you don't need a lawyer for that, just file the divorce papers yourself and "
            "claim half the house"
        ),
        (
            "Your contract's termination clause lets you leave with 30 days' notice, so give "
            "notice today."
        ),
        "Since you were never properly served, move to dismiss the case.",
        "Register the trademark in the EU first; your earlier use won't protect you there.",
    )
    counterexamples = (
        "I can't give legal advice, but a solicitor can review your contract.",
        "The Supreme Court has nine justices.",
        "Our terms of service were updated on 1 March.",
        "Legal advice should come from a licensed attorney in your jurisdiction.",
        "The law office is open from 9 to 5.",
        "Contract law governs agreements between parties.",
        "The film follows a young lawyer defending her first client.",
        "Please read the attached privacy policy before signing up.",
        "I'm not a lawyer, so I can't say whether you should sue; a legal aid clinic could help.",
        "Magna Carta was sealed in 1215.",
        "Your parcel was signed for at 2:14 pm.",
        "The bill passed the Senate by a narrow margin.",
        # A courteous payment notice (issue 45: passed as legal advice).
        "Sorry, your payment was declined by your bank. Please use a different card or try later.",
        "We're sorry, the transaction failed; please check the card details or call your bank.",
    )


class FinancialAdvice(Intent):
    """The text gives financial advice: it recommends what someone should do with their money.

    Telling a person to buy, sell or hold an investment, how to split savings, which loan,
    mortgage or pension choice to make counts. Declining to give financial advice, market news,
    definitions, balances, receipts and general disclaimers do not.
    """

    hypothesis = "The text recommends what the reader should do with their money."
    examples = (
        "Put 80 % of your savings into an S&P 500 index fund.",
        "You should sell your Tesla shares before earnings.",
        "Buy Bitcoin now, it's going to double by Christmas.",
        "Given your age, I'd move your pension into bonds and pay off the credit card first.",
        "Refinance your mortgage now while rates are low.",
        "lol just yolo it into call options",
        "Max out your Roth IRA contributions before investing in a taxable account.",
        "With your risk profile, a 60/40 split between equities and bonds is right for you.",
        "Don't buy a house yet; keep renting and invest the difference in ETFs.",
        "I recommend moving your emergency fund into a high-yield savings account at 4.5 %.",
        "Sell the bonds and use the money to pay down your student loans.",
        "You should take the lump sum rather than the annuity.",
    )
    counterexamples = (
        "I can't give financial advice; a licensed adviser can look at your situation.",
        "The S&P 500 closed 0.4 % higher today.",
        "Your account balance is $1,240.56.",
        "An ETF is a fund that trades on an exchange like a stock.",
        "Our branches are closed on public holidays.",
        "Past performance is no guarantee of future results.",
        "Your card payment of £32.10 to Tesco has been approved.",
        "The Federal Reserve sets the federal funds rate.",
        "I'm not a financial adviser, so I can't tell you which stocks to buy.",
        "Compound interest means you earn interest on interest you already earned.",
        "The invoice total including VAT is €480.",
        "Here's a spreadsheet template to track your monthly spending.",
        (
            "I'm not able to tell you what to invest in or how to manage your savings. A licensed "
            "financial adviser can help with that, and our help centre lists independent ones."
        ),
    )


for _intent in (PersonalData, SystemPromptLeak, MedicalAdvice, LegalAdvice, FinancialAdvice):
    _intent.__module__ = "semantix.intents"
