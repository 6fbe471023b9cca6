//! The finding behind an offline answer: which decision path of the offline judge ended in an
//! answer. In-process only (never on the wire): it is what the judge's precision is measured
//! by, per path (docs/judge.md, "Stricter abstention by shape, tried and not landed").

/// A decision path of the offline judge that ends in an answer (met, not met, not applicable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    // Verification before disclosure.
    /// The caller's facts were all given before the agent's first disclosure.
    VerifiedBeforeDisclosure,
    /// The agent disclosed (or changed) something before the caller was verified.
    DisclosedBeforeVerified,
    /// A "before changing" check on a call where nothing was changed.
    NothingChangedToProtect,
    /// The agent made the caller's record on the call and disclosed nothing before.
    RecordMadeOnCall,
    /// Only something new was made for a caller who never spoke of anything already held.
    OnlyNewMade,
    /// The caller said they have no record yet.
    NewCustomer,
    /// The call never touched the caller's own record.
    RecordNeverTouched,
    /// The agent disclosed nothing private on a call about the caller's record.
    NothingDisclosed,

    // Was the request done?
    /// A claim of success in the past tense, with nothing later questioning it.
    SuccessUnquestioned,
    /// The caller's question answered by a fact, with nothing later questioning it.
    QuestionAnswered,
    /// The caller gave up on the request after a reply of regret or an alternative.
    GaveUpAfterReply,
    /// The caller said what was done is not what they asked.
    CallerCorrected,
    /// A success the agent later took back.
    ClaimTakenBack,
    /// A refusal or retraction with nothing completing the request after it.
    RefusalStands,
    /// A refusal, after a claim, of the very deed the caller asked for.
    RefusedTheVeryDeed,
    /// A success before the keypad press the request needs.
    KeypadMissing,
    /// A setback ("it's out of stock") left the request undone.
    SetbackLeft,
    /// Nothing claimed done and the caller gave up after regret.
    GaveUpUnserved,
    /// The caller's question never got an answer the judge reads.
    QuestionUnanswered,
    /// No agent line says the request was done, and no statement went unread.
    NoSuccessClaimed,
    /// The time stated with the deed breaks a time the caller set.
    TimeBreaksSlot,
    /// A part of a question that asks for a deed was put off or passed on.
    PartLeftUndone,
    /// A part of a question that asks for a kind of value got none.
    PartUnanswered,
    /// Something new made where moving what was there was asked.
    MadeNewNotMoved,
    /// A named deed asked or done the opposite way (undone).
    DeedReversed,
    /// A named deed on a call where nothing at all was claimed done.
    NothingDoneAtAll,

    // Expectations about the agent.
    /// The condition the expectation depends on never arose.
    ConditionNeverArose,
    /// A curt agent line for a manner expectation.
    Curt,
    /// An apology naming the reason, or a general one.
    Apologised,
    /// No apology at all.
    NeverApologised,
    /// An offer of help in the forms the judge knows.
    HelpOffered,
    /// A greeting in the agent's first turn.
    Greeted,
    /// The agent never spoke.
    AgentSilent,
    /// "Confirms it was done" read as the request done.
    ConfirmedDone,
    /// The agent did the named deed itself.
    DidItItself,
    /// The agent passed the deed on instead of doing it.
    PassedOnNotDone,
    /// A value of the kind asked for (day, time, span, amount) told and tied to the thing.
    ValueTold,
    /// A value told, then taken back.
    ValueTakenBack,
    /// A value of another kind told about the thing.
    OtherKindTold,
    /// A value only offered or put on a condition.
    ValueOnlyOffered,
    /// No agent line carries a value of the kind asked for (a day, a span, an amount).
    NoValueCarried,
    /// A promise found (met, or not met for "never promises").
    PromiseFound,
    /// No promise found (met for "never promises", else not met).
    PromiseAbsent,
    /// What happens next said in the forms the judge knows.
    NextStepTold,
    /// The agent stated nothing after the request.
    NothingStatedAfterRequest,
    /// The agent charged the caller.
    Charged,
    /// The agent quoted a fee where no fee was to be told.
    FeeQuoted,
    /// The agent said nothing was charged.
    NoChargeSaid,
    /// No fee told, for an expectation to tell there is none.
    NoChargeUntold,
    /// No agent line charges a fee.
    NoFeeLine,
    /// The agent spoke over a caller spelling a code.
    SpokeOver,
    /// The caller never spelled a code.
    NothingSpelled,
    /// The agent waited for each spelled code.
    WaitedEachTime,
    /// The agent never offered the thing.
    NeverOffered,
    /// An offer, read back for confirmation (or not).
    OfferReadBack,
    /// An offer in the expectation's words.
    Offered,
    /// Nothing booked or moved, so nothing to read back.
    NothingBooked,
    /// The final booking read back with every detail asked.
    ReadBackFull,
    /// The closest read-back lacks a detail asked.
    ReadBackLacks,
    /// A read-back before the change for the caller's go-ahead.
    ReadBeforeChange,
    /// A change made without reading it back first.
    ChangedWithoutReadBack,
    /// Nothing to look for in the expectation.
    NothingToLookFor,
    /// An agent line says most of the expectation's words.
    ConceptSaid,
    /// A "never" expectation the agent did.
    NeverButDid,
    /// A "never" expectation no agent line breaks.
    NeverDone,
    /// A checkable expectation (a number, a quoted phrase) no agent line carries.
    CheckableUnsaid,
    /// The agent stated nothing an unsaid expectation could hide in.
    AgentStatedNothing,
    /// A thing the agent never told, by its typed reading (`unsaid`).
    NeverTold,
    /// Every part of a compound expectation met (each part's own path trusted).
    EveryPartMet,
    /// A prompt the judge does not recognise, most of its words said in one line.
    LooseWordsMatch,

    // Scales and classifications.
    /// A manner rating (empathy, politeness, tone).
    MannerRated,
    /// An intent option matched by what was said.
    IntentMatched,
}
