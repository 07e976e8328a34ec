"""Word lists and phrase patterns for the offline claim splitter and its check-worthiness rule (`worthiness`).

Kept apart from the splitter's logic so the heuristics stay readable and the lists easy to extend.
All words are lower case, with straight apostrophes.
"""

from __future__ import annotations

import re


def phrase_pattern(*alternatives: str) -> re.Pattern[str]:
    """Compile alternatives case-insensitively; a straight apostrophe also matches a curly one."""
    source = "(?:" + "|".join(alternatives) + ")"
    return re.compile(source.replace("'", "['’]"), re.IGNORECASE)

# --------------------------------------------------------------------------- verbs

BE_FORMS = frozenset({"is", "are", "was", "were", "be", "been", "being", "am"})
HAVE_FORMS = frozenset({"has", "have", "had"})
MODALS = frozenset({"will", "would", "can", "could", "may", "might", "must", "shall", "should", "cannot"})
DO_FORMS = frozenset({"do", "does", "did"})
NEGATED_AUXILIARIES = frozenset({
    "isn't", "aren't", "wasn't", "weren't", "hasn't", "haven't", "hadn't", "doesn't", "don't", "didn't",
    "won't", "wouldn't", "can't", "couldn't", "mustn't", "shouldn't", "mightn't", "shan't",
})
AUXILIARIES = BE_FORMS | HAVE_FORMS | MODALS | DO_FORMS | NEGATED_AUXILIARIES

IRREGULAR_PAST = frozenset({
    "arose", "awoke", "ate", "eaten", "beat", "beaten", "became", "began", "begun", "bent", "bit", "bitten",
    "blew", "blown", "bore", "born", "bought", "bred", "broke", "broken", "brought", "built", "burnt",
    "caught", "chose", "chosen", "came", "dealt", "dove", "drew", "drawn", "drove", "driven", "dug", "fed",
    "fell", "fallen", "felt", "fled", "flew", "flown", "forbade", "forgave", "forgot", "forgotten", "fought",
    "found", "froze", "frozen", "gave", "given", "got", "gotten", "went", "gone", "grew", "grown", "heard",
    "held", "hid", "hidden", "hung", "kept", "knew", "known", "laid", "led", "left", "lent", "lost", "made",
    "meant", "met", "oversaw", "overtook", "overcame", "paid", "ran", "rang", "rebuilt", "rode", "ridden",
    "rose", "risen", "said", "sang", "sung", "sank", "sunk", "sat", "saw", "seen", "sold", "sent", "shook",
    "shone", "shot", "showed", "shown", "shrank", "slept", "slid", "sought", "spent", "spoke", "spoken",
    "sprang", "stood", "stole", "stolen", "struck", "stuck", "swam", "swept", "swore", "sworn", "swung",
    "taught", "took", "taken", "told", "tore", "torn", "thought", "threw", "thrown", "understood",
    "undertook", "withdrew", "woke", "won", "wore", "worn", "wrote", "written",
})

# Third-person present forms common in factual prose. A bare "-s" suffix is too ambiguous (plural nouns).
PRESENT_VERBS = frozenset({
    "accepts", "allows", "applies", "attracts", "becomes", "begins", "belongs", "borders", "charges",
    "closes", "comprises", "connects", "consists", "contains", "costs", "covers", "crosses", "depends",
    "displays", "draws", "earns", "employs", "ends", "equals", "exceeds", "features", "feels", "flows", "follows",
    "generates", "gets", "gives", "goes", "grows", "holds", "hosts", "houses", "includes", "joins", "lasts",
    "leads", "lies", "links", "lives", "looks", "makes", "marks", "means", "measures", "offers", "opens", "operates",
    "owns", "plays", "produces", "protects", "provides", "ranks", "reaches", "receives", "refunds",
    "remains", "represents", "requires", "rises", "runs", "seats", "seems", "sells", "serves", "ships", "sits",
    "smells", "spans", "stands", "starts", "stores", "stretches", "supports", "takes", "tastes", "uses", "varies",
    "weighs", "welcomes", "works",
})

# Past forms that read naturally without a carried-over auxiliary: "was designed by X and opened in 1973".
INTRANSITIVE_PAST = frozenset({
    "opened", "reopened", "closed", "began", "started", "ended", "finished", "died", "grew", "rose", "fell",
    "collapsed", "burned", "burnt", "sank", "moved", "retired", "returned", "arrived", "left", "went",
    "came", "became", "remained", "stood", "lived", "ran", "served", "lasted", "survived", "merged",
    "expanded", "declined", "peaked", "won", "lost", "played", "toured", "worked", "studied", "graduated",
})

# Participles that work as adjectives after a copula: "is old and located in Paris" -> "is located in Paris".
ADJECTIVAL_PARTICIPLES = frozenset({
    "acclaimed", "based", "celebrated", "connected", "covered", "dedicated", "devoted", "equipped",
    "famed", "known", "listed", "located", "named", "noted", "owned", "related", "renowned", "situated",
})

# Words ending in "-ed" that are not verbs.
ED_NON_VERBS = frozenset({
    "bed", "bleed", "bred", "breed", "creed", "deed", "embed", "exceed", "feed", "greed", "hatred",
    "hundred", "indeed", "kindred", "naked", "need", "proceed", "red", "reed", "sacred", "seed", "shed",
    "sled", "speed", "steed", "succeed", "weed", "wicked", "wretched", "rugged", "ragged", "jagged",
    "beloved", "aged", "crooked", "dogged", "learned",
})

# Adverbs that may sit inside a verb group or before a coordinated verb: "and later became".
VERB_ADVERBS = frozenset({
    "not", "never", "also", "later", "then", "still", "now", "soon", "again", "already", "always", "often",
    "once", "first", "since", "subsequently", "eventually", "finally", "recently", "originally", "even",
})

# --------------------------------------------------------------------------- function words

DETERMINERS = frozenset({
    "the", "a", "an", "this", "that", "these", "those", "its", "his", "her", "their", "our", "my", "your",
    "some", "any", "each", "every", "no", "all", "both", "either", "neither", "another", "such",
})
# Words that can follow a verb: evidence that an "-ed" word after "and" starts a verb phrase.
VERB_FOLLOWERS = frozenset({
    "in", "on", "at", "by", "for", "from", "to", "into", "onto", "with", "within", "without", "as", "after",
    "before", "during", "until", "since", "through", "across", "under", "over", "between", "near",
    "outside", "inside", "along", "around", "among", "against", "toward", "towards", "via", "per", "off",
    "out", "down", "up", "away", "back", "there", "here", "about", "nearly", "almost", "approximately",
    "more", "less", "than", "several", "many", "it", "them", "him", "us", "you", "me",
})
# Words after which an "and" no longer coordinates the main clause's verb phrases.
CLAUSE_OPENERS = frozenset({
    "who", "whom", "whose", "which", "that", "where", "when", "while", "whereas", "because", "although",
    "though", "if", "unless", "whether",
})
# A clause opened by one of these cannot stand alone once its main clause has been cut off.
SUBORDINATOR = phrase_pattern(
    r"(?:even\s+(?:though|if|when)|although|though|while|whereas|because|since|if|unless|when|whenever|"
    r"once|as|after|before|until|despite|given\s+that)\b",
)
LEADING_CONJUNCTIONS = frozenset({"and", "but", "so", "yet", "plus"})

QUESTION_WORDS = frozenset({"who", "what", "when", "where", "why", "how", "which", "whose", "whom"})

# First words that mean the words before the verb are not a subject at all ("In 1973 the ...").
NON_SUBJECT_STARTS = frozenset({
    "there", "here", "today", "yesterday", "now", "then", "currently", "later", "also", "however",
    "still", "in", "on", "at", "by", "for", "from", "with", "after", "before", "during", "since", "what",
    "who", "which", "where", "when", "why", "how", "if", "although", "though", "while", "because", "as",
    "unless", "even", "once", "only", "please", "thanks", "yes", "so", "and", "but", "or", "not",
})
# First words of a subject too vague to carry into the next sentence ("A man", "Many people", "It").
VAGUE_SUBJECT_STARTS = frozenset({
    "a", "an", "i", "we", "you", "it", "he", "she", "they", "this", "that", "these", "those", "its",
    "his", "her", "their", "our", "my", "your", "one", "some", "many", "most", "few", "all", "every",
    "each", "no", "none", "any", "another", "such", "other", "others", "both", "either", "neither",
    "everyone", "everything", "someone", "something", "nobody", "nothing",
})
SUBJECT_BAD_ENDS = frozenset({"of", "and", "or", "the", "a", "an", "to", "in", "on", "at", "for", "with"})
RELATIVES = frozenset({"who", "whom", "whose", "which", "that", "where", "when"})

# Sentence-initial anaphors resolved to the previous subject; possessives become "<Subject>'s".
PERSONAL_PRONOUNS = frozenset({"it", "he", "she", "they"})
POSSESSIVE_PRONOUNS = frozenset({"its", "his", "her", "their"})
DEMONSTRATIVES = frozenset({"this", "that", "these", "those"})
ANAPHORIC_NOUNS = frozenset({
    "building", "city", "town", "village", "country", "state", "region", "structure", "tower", "bridge",
    "museum", "venue", "landmark", "monument", "site", "place", "company", "firm", "organisation",
    "organization", "institution", "university", "school", "park", "river", "lake", "island", "mountain",
    "church", "cathedral", "palace", "castle", "house", "hotel", "store", "shop", "restaurant", "airport",
    "station", "stadium", "theatre", "theater", "book", "novel", "film", "movie", "song", "album", "game",
    "product", "device", "policy", "law", "treaty", "band", "group", "team", "project", "program",
    "programme", "festival", "event", "species", "animal", "plant", "language", "dish",
})
CLITIC_VERBS = {"'s": "is", "'re": "are", "'ll": "will", "'ve": "have", "'m": "am", "'d": "would"}
# Pronouns whose "'s" is a verb ("it's"), not a possessive ("Australia's").
CLITIC_HOSTS = frozenset({
    "i", "we", "you", "it", "he", "she", "they", "that", "this", "there", "here", "who", "what", "where",
    "everything", "nothing", "everyone", "someone", "something",
})

MONTHS = frozenset({
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
    "dec",
})

# --------------------------------------------------------------------------- opinions

# Words of taste: a statement that applies one to its subject is a value judgement, not a fact.
TASTE = frozenset({
    "amazing", "annoying", "appalling", "awesome", "awful", "beautiful", "bland", "boring", "breathtaking",
    "brilliant", "charming", "cool", "cosy", "cozy", "cute", "delicious", "delightful", "disappointing",
    "disgusting", "dreadful", "dull", "elegant", "enjoyable", "excellent", "exciting", "exquisite",
    "fabulous", "fantastic", "fascinating", "favorite", "favourite", "first-rate", "frustrating", "fun",
    "funny", "gorgeous", "gross", "heavenly", "hideous", "horrible", "impressive", "incredible",
    "interesting", "jaw-dropping", "lame", "lousy", "lovely", "magical", "magnificent", "marvellous",
    "marvelous", "masterpiece", "mediocre", "mind-blowing", "must-see", "nice", "outstanding", "overhyped",
    "overpriced", "overrated", "pathetic", "picturesque", "pleasant", "pointless", "pretty", "quaint",
    "remarkable", "ridiculous", "rubbish", "sad", "second-rate", "silly", "spectacular",
    "splendid", "stunning", "stupid", "sublime", "sucks", "superb", "surprising", "tasteless", "tasty",
    "tedious", "terrible", "terrific", "top-notch", "ugly", "underappreciated", "underrated", "underwhelming",
    "unfair", "unforgettable", "unpleasant", "useless", "weird", "wonderful", "world-class", "worthless",
    "yummy", "deserves", "deserved", "nicest", "prettiest", "loveliest", "ugliest", "tastiest",
    "funniest", "dullest",
})
# Words of taste only when graded ("the most romantic city"); plain, they may name a kind ("a romantic comedy").
GRADED_TASTE = frozenset({
    "romantic", "scenic", "relaxing", "friendly", "vibrant", "lively", "exotic", "iconic", "peaceful", "inspiring",
})
# Words that rank by taste ("the best pizza"), unless a measure follows ("the best known", "the greatest number").
RANKING = frozenset({
    "best", "worst", "great", "greatest", "finest", "better", "worse", "perfect", "ideal", "worth",
})
EVALUATIVE = TASTE | RANKING
"""Subjective words: taste and ranking. Measurable superlatives (tallest, largest, first, oldest) are not here."""

# Nouns after a ranking word that make it a measure: "the greatest number of medals", "the best year for sales".
MEASURE_NOUNS = frozenset({
    "number", "amount", "share", "proportion", "part", "portion", "total", "majority", "quantity", "depth",
    "height", "length", "width", "distance", "extent", "concentration", "density", "range", "population",
    "area", "volume", "speed", "mass", "weight", "year", "quarter", "month", "season", "result", "results",
    "score", "record", "sales", "performance", "rate", "level", "increase", "decrease", "decline", "loss",
    "gain", "drop", "rise", "attendance", "ratings", "deal", "many",
})
# Verbs that report who judged: "was voted the best city by Time Out" is a claim about the vote.
ATTRIBUTION_VERBS = frozenset({
    "voted", "named", "ranked", "rated", "called", "dubbed", "described", "praised", "hailed", "crowned",
    "awarded", "listed", "declared", "nominated", "judged", "titled", "vote", "votes", "name", "names",
    "rank", "ranks", "rate", "rates", "call", "calls", "dub", "dubs", "describe", "describes", "praise",
    "praises", "hail", "hails", "crown", "crowns", "award", "awards", "list", "lists", "declare", "declares",
    "according", "regarded", "considered", "recognised", "recognized", "acclaimed",
})
# A first-person preference: "My favourite city is Paris".
PERSONAL_TASTE = phrase_pattern(
    r"\b(?:my|our)\s+(?:all[\s-]time\s+|absolute\s+|personal\s+|very\s+)?(?:favou?rite|preferred)\b"
)
# Auxiliaries that make a statement normative ("Everyone should visit Paris"): an opinion outside source mode.
NORMATIVE = frozenset({"should", "shouldn't", "ought", "oughtn't"})

HEDGE = phrase_pattern(
    r"(?:(?:i|we)\s+(?:really\s+|honestly\s+|personally\s+)?"
    r"(?:think|believe|feel|guess|suppose|reckon|suspect|would\s+say|'d\s+say)"
    r"(?:\s+(?:that|like))?|in\s+(?:my|our)\s+(?:opinion|view)|(?:please\s+)?(?:note|keep\s+in\s+mind|"
    r"be\s+aware|remember)(?:\s+that)?|just\s+so\s+you\s+know)[\s,]+",
)
AFFECT = phrase_pattern(
    r"(?:i|we)\s+(?:really\s+|absolutely\s+|just\s+|truly\s+)?"
    r"(?:love|like|adore|hate|enjoy|prefer|dislike|admire|loved|liked|adored|hated|enjoyed)\b",
)
EXCLAMATIVE = phrase_pattern(r"what\s+an?\b")
PREDICTION = phrase_pattern(
    r"(?:(?:i|we|they|analysts|experts|economists|forecasters|scientists|observers|many|some|most)\s+"
    r"(?:predict|predicted|forecast|expect|anticipate|project|foresee|bet|reckon\s+that\s+.*\bwill)"
    r"|(?:it\s+is|it's)\s+(?:predicted|forecast|expected|projected|likely|anticipated)\s+that"
    r"|(?:according\s+to\s+)?(?:the\s+)?(?:forecasts?|predictions?|projections?)\s+(?:say|show|suggest)s?)\b",
)
"""A statement presented as a forecast ("We predict that ...", "It is expected that ...")."""
FUTURE_TIME = re.compile(
    r"\b(?:next\s+(?:year|month|week|decade|season|century|election|time)|tomorrow|soon|one\s+day|someday|"
    r"in\s+the\s+(?:future|coming\s+\w+|years?\s+ahead)|by\s+(?:the\s+end\s+of\s+)?(?:20[3-9]\d|21\d\d)|"
    r"in\s+(?:20[3-9]\d|21\d\d)|in\s+(?:about\s+|around\s+|some\s+)?[\d.,]+\s+(?:million\s+|billion\s+)?years|within\s+(?:the\s+next\s+)?\w+\s+(?:years|decades))\b",
    re.IGNORECASE,
)
"""A future marker: with "could", "might" or "may", the statement is a forecast ("Prices could fall next year")."""

# Predictions: which verb groups forecast, and which state a timetable or a general law.
FUTURE_AUXILIARIES = frozenset({"will", "won't", "shall", "shan't"})
PRESENT_BE = frozenset({"is", "are", "am", "isn't", "aren't"})
LIKELIHOOD = frozenset({
    "expected", "likely", "unlikely", "projected", "forecast", "forecasted", "predicted", "poised", "bound",
    "certain", "sure", "destined", "going", "about",
})
"""After a present "be" and before "to": the statement is a forecast ("is expected to", "are going to")."""
DESTINATIONS = frozenset({
    "school", "work", "church", "bed", "college", "university", "hospital", "court", "sea", "war", "prison",
    "jail", "class", "market", "town", "lunch", "dinner", "breakfast", "mass",
})
"""Places one goes to without an article: "is going to school" is no forecast."""
SPECULATIVE = frozenset({"could", "might", "may", "should"})
"""Modals that make a forecast only with a future time ("Prices could fall next year")."""
SCHEDULED = frozenset({
    "held", "hosted", "host", "staged", "open", "opened", "reopen", "reopened", "close", "closed", "begin",
    "start", "end", "resume", "premiere", "air", "released", "broadcast", "take", "kick",
})
"""Verbs of a timetable: "will be held in Brisbane", "will open on Monday" state a scheduled fact."""
GENERAL_LAW = re.compile(r"\b(?:if|when|whenever|once|unless)\s+(?:you|one|[a-z]+ed)\b", re.IGNORECASE)
"""A generic condition ("If you heat ice", "when heated"): the "will" that follows states a law."""
EFFECTS = frozenset({
    "cure", "kill", "protect", "prevent", "treat", "disinfect", "help", "harm", "hurt", "damage", "cause",
    "stop", "block", "relieve", "heal", "weaken", "strengthen", "boil", "melt", "freeze", "dissolve", "float",
    "sink", "burn", "poison", "infect", "spread", "transmit", "neutralise", "neutralize", "destroy", "reduce",
    "keep", "work",
})
"""Verbs of cause and effect: "Garlic will cure the flu", "Masks will not protect you" state what a thing
does, whenever it is done (a claim to check), not what is going to happen."""
CAUSATIVES = frozenset({"make", "makes", "made", "making", "get", "gets", "got", "getting"})
"""Before "better" or "worse", a verb of causing: "Alcohol can make the infection worse" is a claim of effect."""
COMPARATIVES = frozenset({"better", "worse"})
GRADERS = frozenset({"most", "more", "least", "less", "so", "very", "too", "really", "quite", "truly", "incredibly"})
"""Words that grade an adjective: before a word of `GRADED_TASTE` they make it a judgement."""

# --------------------------------------------------------------------------- courtesy

# Segments that are courtesy whatever else they contain.
_ALWAYS_COURTESY = (
    r"(?:many\s+|huge\s+|big\s+)?thanks?\b(?!\s+to\b)",
    r"thank\s+you\b",
    r"(?:you're|you\s+are)\s+(?:very\s+|most\s+)?welcome\b",
    r"(?:no\s+problem|no\s+worries|my\s+pleasure|anytime)\b",
    (r"(?:(?:i|we)(?:'m|'re|'d\s+be|\s+am|\s+are|\s+would\s+be)\s+)?(?:so\s+|very\s+|more\s+than\s+|always\s+)?"
    r"(?:happy|glad|pleased|delighted)\s+to\s+(?:help|assist|hear)\b"),
    r"(?:please\s+)?(?:let\s+(?:me|us)\s+know|feel\s+free|(?:don't|do\s+not)\s+hesitate)\b",
    r"(?:(?:i|we)\s+)?hope\s+(?:this|that|it)\s+(?:helps|answers|clarifies)\b",
    r"(?:(?:i|we)\s+)?hope\s+(?:you|all\s+is\s+well)\b",
    r"have\s+a\s+(?:great|good|nice|wonderful|lovely|fantastic)\b",
    r"(?:great|good|excellent)\s+question\b",
    r"(?:i'm|i\s+am|we're|we\s+are)\s+(?:always\s+)?here\s+(?:to\s+help|for\s+you)\b",
    r"(?:is\s+there\s+)?anything\s+else\b",
    r"(?:do\s+you\s+have\s+)?any\s+(?:other|more|further)\s+questions\b",
    r"(?:how|what)\s+(?:else\s+)?(?:can|may|could|shall)\s+(?:i|we)\s+(?:help|assist|do\s+for\s+you)\b",
    r"(?:can|may|could|shall)\s+(?:i|we)\s+(?:help|assist)\s+(?:you\b|with\b)",
    r"(?:how\s+are\s+you|how's\s+it\s+going|how\s+have\s+you\s+been)\b",
    r"(?:(?:it\s+was|it's)\s+)?(?:nice|good|great|lovely|pleased)\s+(?:to\s+(?:meet|see|hear\s+from)|talking\s+to)\s+you\b",
    r"let\s+(?:me|us)\s+(?:check|look\s+into|see\s+what|help|find\s+out)\b",
    r"(?:glad|happy)\s+(?:i|we)\s+could\s+help\b",
    r"(?:it\s+was\s+|it's\s+)?(?:my|our|a)\s+pleasure\b",
)
# Greetings and sign-offs: only when the segment is short ("Hey Jude is a song" is not a greeting).
_SHORT_COURTESY = (
    r"(?:hi|hello|hey|hiya|howdy|greetings|welcome|dear)\b",
    r"good\s+(?:morning|afternoon|evening|day|night)\b",
    r"(?:best|kind|warm|warmest|many)\s+(?:regards|wishes)\b",
    r"(?:regards|cheers|sincerely|bye|goodbye|take\s+care|all\s+the\s+best|yours\s+(?:truly|sincerely))\b",
    r"(?:good\s+luck|congratulations|congrats|well\s+done|enjoy|excuse\s+me|see\s+you|talk\s+soon)\b",
)
# Empathy and apology: dropped in source mode always, elsewhere when they carry no checkable fact.
_SOFT_COURTESY = (
    r"(?:i'm|i\s+am|we're|we\s+are)\s+(?:so\s+|very\s+|really\s+|truly\s+|terribly\s+|deeply\s+|extremely\s+)?sorry\b",
    r"sorry\b",
    r"(?:my|our)\s+(?:sincere\s+|deepest\s+)?apologies\b",
    r"(?:i|we)\s+(?:sincerely\s+)?apologi[sz]e\b",
    (r"(?:i|we)\s+(?:completely\s+|totally\s+|fully\s+|really\s+|absolutely\s+|truly\s+|definitely\s+|can\s+|do\s+)?"
    r"(?:understand|hear\s+you|get\s+it|see\s+how|know\s+how|imagine|appreciate)\b"),
    r"(?:that|this)\s+(?:must|would|can|could)\s+(?:be|feel)\b",
    (r"(?:that|this)\s+(?:sounds|is|seems)\s+(?:so\s+|really\s+|very\s+)?"
    r"(?:frustrating|annoying|stressful|difficult|hard|upsetting|disappointing|inconvenient)\b"),
    r"(?:don't|do\s+not|no\s+need\s+to|not\s+to)\s+worry\b",
    r"rest\s+assured$",
)
# Bare interjections, dropped only as a whole segment at the start or end of a sentence.
_INTERJECTIONS = (
    (r"(?:sure|certainly|absolutely|of\s+course|okay|ok|yes|yeah|no|oh|ah|well|wow|hmm|alright|all\s+right|"
    r"right|great|perfect|indeed|got\s+it|i\s+see|understood|sounds\s+good|unfortunately|sadly|"
    r"regrettably|actually|basically|honestly|frankly|personally|oh\s+no|oh\s+dear)$"),
)

ALWAYS_COURTESY = phrase_pattern(*_ALWAYS_COURTESY)
SHORT_COURTESY = phrase_pattern(*_SHORT_COURTESY)
SOFT_COURTESY = phrase_pattern(*_SOFT_COURTESY)
INTERJECTION = phrase_pattern(*_INTERJECTIONS)
SHORT_COURTESY_MAX_WORDS = 5

# "It" that points at nothing: "It has been 14 days since", "It is estimated that", "It seems".
EXPLETIVE_IT = phrase_pattern(
    r"it(?:\s+(?:seems|seemed|appears|appeared|takes|took|means|meant)\b"
    r"|(?:'s|\s+is|\s+was|\s+has\s+been|\s+had\s+been|\s+will\s+be)\s+(?:\S+\s+){0,4}?(?:since|ago)\b"
    r"|(?:'s|\s+is|\s+was)\s+(?:not\s+)?(?:very\s+)?(?:estimated|believed|said|thought|reported|known|likely|"
    r"unlikely|possible|impossible|important|true|false|clear|unclear|necessary|easy|hard|difficult|"
    r"common|rare|raining|snowing|sunny|cold|hot|warm|late|early|time)\b)",
)
