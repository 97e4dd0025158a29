"""Ready-made intents about how a reply behaves: refusing, apologising, tone, questions."""

from __future__ import annotations

from semantix._intent import Intent

__all__ = ["Apology", "AsksClarifyingQuestion", "Polite", "Profanity", "Refusal", "Rude"]


class Refusal(Intent):
    """The text refuses or declines to do what was asked.

    It says, in any wording, that the request will not be fulfilled: "I can't help with that",
    "I'm unable to share that", "I won't write that". Saying sorry or wording it courteously
    does not make it less of a refusal, and offering help with something else afterwards still
    counts. Bad news delivered while helping ("the store closes at 6, but you can order
    online"), a clarifying question, or the word "can't" inside a helpful answer is not a
    refusal.
    """

    hypothesis = "The text refuses to help with the request."
    examples = (
        "I can't help with that.",
        "Sorry, but I won't be able to write that essay for you.",
        (
            "I'm afraid I must decline this request. Generating fake product reviews would mislead "
            "customers, which goes against the policies I follow."
        ),
        "Nope, not something I can do.",
        (
            "Thank you for reaching out! Unfortunately I'm unable to share other customers' order "
            "details. Is there anything else I can help you with?"
        ),
        "As an AI assistant, I cannot provide instructions for picking locks.",
        "I'd rather not answer that one.",
        "We regret to inform you that we are unable to process this request.",
        "That's outside what I'm allowed to do, so I'll have to pass.",
        (
            "I understand why you're asking, and I really wish I could help, but I can't generate "
            "that kind of content. I'd be glad to help with something else."
        ),
        "Unable to comply.",
        "I won't be writing malware, even for a test environment.",
        "I'm sorry, but I can't give legal advice. Please speak to a qualified lawyer.",
        (
            "I'm sorry, but I'm not able to recommend a dosage or diagnose symptoms over chat. "
            "For anything about your health, please contact your doctor or a pharmacist."
        ),
    )
    counterexamples = (
        "Sure! Here's a short poem about autumn: golden leaves drift down, the air smells of rain.",
        "Of course. The capital of Australia is Canberra.",
        "Sorry for the delay. Here is the report you asked for.",
        "I can't believe how easy this is: just run pip install requests and you're done.",
        "Unfortunately the store closes at 6 pm, but you can order online any time.",
        "No problem, I've updated your shipping address.",
        (
            "You can't mix bleach and ammonia because it produces a toxic gas; use one cleaner at "
            "a time and keep the room ventilated."
        ),
        (
            "Here are three options for your trip: Lisbon for the food, Porto for the wine, and "
            "the Algarve coast if you mostly want beaches."
        ),
        "Absolutely, let me walk you through it step by step. First, open Settings.",
        "I'm not sure I understood: do you want the summary in English or in French?",
        (
            "The function returns None because it never reaches a return statement; add `return "
            "result` at the end."
        ),
        (
            "Declined payments usually mean the billing address doesn't match; please check it and "
            "try again."
        ),
    )


class Apology(Intent):
    """The text apologises: it expresses regret for a mistake, a delay or an inconvenience.

    "Sorry", "my apologies", "we apologise for", "I regret the error" all count, also inside a
    refusal ("I'm sorry, but I can't help with that"). Talking about apologies ("no apology
    needed", "you should apologise to her"), reassurance ("mistakes happen") and thanks without
    regret are not apologies.
    """

    hypothesis = "The text contains an apology."
    examples = (
        "Sorry about that!",
        "I apologise for the confusion in my previous answer; the correct figure is 42.",
        "My apologies, I misread your question.",
        "We sincerely apologize for the inconvenience caused by the delayed shipment.",
        "Oops, my bad. Let me fix that.",
        "I'm sorry, but I can't help with that request.",
        "Please accept our apologies for the error on your invoice; a corrected copy is attached.",
        "You're right, that was a mistake on my part, and I apologise.",
        "Sorry for the late reply.",
        "I regret the error in the earlier summary and have corrected it below.",
        "Apologies, the link I gave you was broken. Here's the working one.",
        "We're sorry that our service fell short of what you expected this time.",
        "So sorry for the wait, we're on it now.",
        "Apologies for the mix-up with your booking earlier.",
        (
            "We're so sorry your parcel arrived damaged. That isn't the experience we want for you, "
            "and a new one has already been sent by express delivery at no cost."
        ),
    )
    counterexamples = (
        "Here is the corrected invoice.",
        "No apology needed, happy to help!",
        "The meeting has been moved to 3 pm.",
        "You should apologise to your colleague if you interrupted her.",
        "Thanks for your patience while we looked into this.",
        "I can't help with that request.",
        "Great question! The answer is 7.",
        "The word 'sorry' comes from the Old English 'sarig', meaning distressed.",
        "Your refund of $25 has been issued to your original payment method.",
        "Don't worry, mistakes happen to everyone.",
        "We never compromise on quality, which is why every order is inspected twice.",
        "Please restart the router and wait two minutes before reconnecting.",
        "Your order ships tomorrow.",
        "Read the FAQ. Not my problem.",
        "That's the courier's fault, not ours. Call them.",
        "The file you asked for is attached.",
        "I'm not sorry about any of it.",
        # Thanks and a status update, without regret (issue 45: passed as an apology).
        "Thank you for your patience! The package was delivered this morning and left at your door.",
        "Thanks for holding, your refund has now been processed.",
    )


class Polite(Intent):
    """The text is polite: courteous and respectful toward the reader.

    Courtesy shows in a friendly opening, thanks, "please", goodwill and a considerate tone, in any
    register from a formal letter to a casual chat. A reply that declines a request can still be
    polite. Curt, dismissive, sarcastic, impatient or insulting replies are not polite.
    """

    hypothesis = "The text is polite."
    examples = (
        "Thank you for your message! I'd be happy to help.",
        "Good morning, and thanks for getting in touch. Your order is on its way.",
        "Could you please send me the tracking number? Thanks so much.",
        "I appreciate your patience while we sorted this out.",
        (
            "Thank you for reaching out. Unfortunately I'm unable to share that information, but "
            "I'd gladly help with anything else."
        ),
        "Happy to help! Let me know if there's anything else.",
        (
            "Dear Ms. Patel, thank you for your enquiry. Please find the requested documents "
            "attached. Kind regards, the Support Team"
        ),
        "No worries at all, glad it's working now!",
        "That's a great question, thanks for asking.",
        "I'm sorry for the trouble, and thank you for bearing with us.",
        "Thanks! Have a lovely weekend.",
        "It was a pleasure assisting you today. Take care.",
        # Status updates and bad news said courteously (issue 45: a courteous reply failed).
        (
            "Unfortunately the transfer was rejected by your bank; please try again whenever it "
            "suits you, and thanks for your patience."
        ),
        "Your parcel was delivered this morning. Thanks for shopping with us, and have a great day!",
        (
            "Your refund has been processed and should reach your account within five days. "
            "Thanks for bearing with us."
        ),
    )
    counterexamples = (
        "Whatever. Figure it out yourself.",
        "That's a stupid question.",
        "Read the manual next time instead of wasting my time.",
        "Ugh, fine. Here's your answer, happy now?",
        "Are you seriously asking me this again?",
        "Nobody cares about your complaint.",
        "Stop emailing us. We won't respond.",
        "Obviously it's broken, you dropped it.",
        "If you can't follow simple instructions, maybe this product isn't for you.",
        "Do it yourself.",
        "Listen, I've already explained this twice. Pay attention.",
        "Your request is denied. Don't ask again.",
        # A plain status update with a curt or condescending tail (issue 45: passed as polite).
        "Your refund went through. Maybe check your inbox before writing to us.",
        "The package arrived on Monday. Next time, look at the tracking page yourself.",
        "Order shipped. Don't make me explain it again.",
    )


class Rude(Intent):
    """The text is rude, toxic or insulting toward the reader or another person.

    Insults, name-calling, contempt, mockery, hostility and demeaning remarks count, whether
    blunt or sarcastic. Disagreement, criticism of work, bad news and refusals said civilly are
    not rude, and neither is a text that merely describes or quotes someone else's rudeness.
    """

    hypothesis = "The text is rude or insulting."
    examples = (
        "You're an idiot.",
        "What a dumb question. Did you even read the docs?",
        "Honestly, people like you are the reason support staff hate their jobs.",
        "Shut up and listen.",
        "Wow, you really can't do anything right, can you?",
        "Nobody asked for your opinion.",
        "Get lost.",
        "Your writing is garbage and so is your taste.",
        "Only a moron would buy this and then complain it doesn't work.",
        "I don't have time for clueless customers.",
        "Typical. You people never listen.",
        "Go back to school before you ask me anything else.",
        (
            "Seriously? This is the third time you've asked the same thing. Try using your brain "
            "for once instead of wasting everyone's time with questions a child could answer."
        ),
        (
            "Oh great, another genius who thinks the rules don't apply to them. Your complaint is "
            "pathetic, the mistake was yours, and frankly nobody here cares what you think."
        ),
        (
            "Are you kidding me? I've explained this twice and you still don't get it. I'm not "
            "paid to babysit people who can't be bothered to read a single page."
        ),
        (
            "If you're too lazy to check the FAQ, that's your problem, not mine. Stop flooding our "
            "inbox with whining and learn to sort out your own mess like an adult."
        ),
        # Condescension after a status update (issue 45: missed as rude).
        "Your order arrived days ago. Try reading the emails we send before you complain.",
        "It's been delivered. Learn to use the tracking page.",
    )
    counterexamples = (
        "Thanks for asking! Here's how to reset your password.",
        "I'm sorry, I can't help with that.",
        "This code has a bug on line 12: the loop never terminates.",
        "I disagree with your conclusion; the data suggests the opposite trend.",
        "Unfortunately your application was not successful this time.",
        "The villain of the film insults everyone he meets.",
        "Please keep your comments respectful in this forum.",
        "That approach won't scale; consider a hash map instead.",
        "Your order will arrive on Tuesday.",
        "No, that's not correct: the Earth orbits the Sun, not the other way around.",
        "Kind regards, and have a great day.",
        "The reviewer called the book dull and derivative.",
        (
            "There are a few spelling mistakes in your cover letter, and the second paragraph is "
            "hard to follow."
        ),
    )


class Profanity(Intent):
    """The text uses profanity: swear words, obscenities or vulgar slang.

    Masked swearing ("f***") counts. Mild substitutes ("darn", "gosh", "shoot"), words that
    merely look similar ("dam", "Scunthorpe"), Hell as a place, strong but clean language, and
    talking about profanity without using any are not profanity.
    """

    hypothesis = "The text contains swear words."
    examples = (
        "This is fucking ridiculous.",
        "Well, shit, that didn't work.",
        "Damn it, the build failed again.",
        "What the hell is going on with this app?",
        "That guy is a total asshole.",
        "Holy crap, that's expensive.",
        "F*** this printer.",
        "Get your shit together and ship the fix.",
        "The update bricked my phone, what a bullshit move.",
        "Screw it, I'm switching providers. This damn service never works.",
        "Son of a bitch, I locked myself out again.",
        "Sure, here's the recipe, and don't burn the damn onions this time.",
        "Where the f*** is my package?",
        "Ugh, this shit keeps breaking.",
        (
            "I've restarted this stupid router five times and the damn internet still drops every "
            "ten minutes. Sort your shit out or I'm cancelling."
        ),
    )
    counterexamples = (
        "This is extremely frustrating.",
        "Oh dear, that didn't work.",
        "Darn, the build failed again.",
        "What on earth is going on with this app?",
        "Scunthorpe is a town in North Lincolnshire, England.",
        "Please avoid using profanity in the comments.",
        "The dam on the river was completed in 1936.",
        "Dante's Inferno describes nine circles of Hell.",
        "Thanks for the quick fix, you're a lifesaver!",
        "I'm really annoyed that my order is late again.",
        "Gosh, that's a lot of money.",
        "Shoot, I forgot my password.",
        "Dang, the app crashed again.",
        "Essex and Sussex are counties in the south of England.",
        (
            "My laptop crashed again in the middle of a presentation and support kept me waiting "
            "for forty minutes. This is unacceptable; I want a call back today."
        ),
    )


class AsksClarifyingQuestion(Intent):
    """The text asks the user a question to clarify their request before answering it.

    It asks for missing details, a choice between readings or the context needed to help
    ("Which city are you flying from?", "Do you mean the 2019 model?"), alone or after a short
    friendly opening. A rhetorical question, a trivia question, a generic "anything else?" and
    an invitation to ask more are not clarifying questions.
    """

    hypothesis = "The text asks the user for more details about their request."
    examples = (
        "Which city are you flying from?",
        "Do you mean the 2019 model or the 2021 one?",
        "Could you tell me your order number so I can look it up?",
        "Just to clarify: do you want the summary in bullet points or as a paragraph?",
        "Happy to help! Before I start, what programming language are you using?",
        "When you say 'the report', do you mean the quarterly sales report or the audit?",
        "Sure. How many people will be attending the dinner?",
        "I can book that. Would you prefer a window or an aisle seat?",
        "That depends on your budget. Roughly how much were you hoping to spend?",
        "Before I recommend a laptop: will you mainly use it for gaming, work, or school?",
        "Hmm, which version of Python are you on? The fix differs between 3.8 and 3.12.",
        "Can you share the full error message?",
        (
            "I can look into that charge for you. Could you tell me the date it appeared on your "
            "statement and the last four digits of the card, so I find the right payment?"
        ),
        (
            "Thanks for getting in touch about your subscription. Do you want to cancel it "
            "completely, or switch to the cheaper monthly plan? Tell me and I'll sort it out."
        ),
    )
    counterexamples = (
        "Here is your summary in bullet points.",
        "Your flight from Boston departs at 7:40 am.",
        "Why is the sky blue? Because of Rayleigh scattering.",
        "Isn't it great when things just work? Your update is installed.",
        "The order number is printed on your receipt.",
        "I've booked a window seat for you.",
        "Let me know if you have any other questions!",
        "Did you know octopuses have three hearts?",
        "To install the package, run pip install numpy.",
        "Thanks, I've updated your delivery address.",
        "Anything else I can help with?",
        "The answer to your question is 42.",
        (
            "Thanks for letting us know about the login problem. It was caused by an expired "
            "session, so I've reset it on our side; please sign in again and it will work."
        ),
    )


for _intent in (Refusal, Apology, Polite, Rude, Profanity, AsksClarifyingQuestion):
    _intent.__module__ = "semantix.intents"
