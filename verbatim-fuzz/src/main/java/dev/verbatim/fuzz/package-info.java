/**
 * The validator fuzz campaign and the graph oracle.
 *
 * <p>Entry points: {@link dev.verbatim.fuzz.Campaign#run} runs a campaign and returns a
 * {@link dev.verbatim.fuzz.CampaignResult} (its {@code summary()} is what {@code verbatim fuzz} prints);
 * {@link dev.verbatim.fuzz.Campaign#replay} re-runs one case; {@link dev.verbatim.fuzz.GraphOracle} compares two
 * graphs, heap or views, value for value and share for share.
 *
 * <p>The parts, one job each: {@code FuzzTypes} (the types messages are made of, each with its view twin),
 * {@code Corpus} (the valid seed messages, from a seed), {@code Mutator} (mutations, random messages and
 * scribbling after validation), {@code MessageOracle} (what the validator, views and materializer must do with one
 * message, built on {@code GraphOracle} and {@code RecordCycles}), {@code Campaign} (workers, watchdog, failure
 * files) and {@code CampaignResult} (its report).
 *
 * <p>Invariants the campaign checks for every message, valid or not (DESIGN §3, §7): validation throws nothing
 * but {@code WireFormatException} naming a rule and an offset inside the message, finishes, and allocates nothing
 * in proportion to a count or length it has not checked; an accepted message respects the reader's limits and
 * reads as one graph through views, a second view type, the materializer, and its copy written and read again;
 * after its memory changes in place it fails with nothing but {@code WireFormatException} (or
 * {@code WireSchemaException} for a cycle through records). Everything derives from the seed, so
 * {@code verbatim fuzz --seed S --replay I} reproduces any case.
 *
 * <p>How the suite runs it: a Maven module cannot be tested by a module that depends on it (wire's tests
 * depending on fuzz would make the cycle wire(test) &rarr; fuzz &rarr; wire), so "run by wire's suite" means this
 * module's tests run in the same build right after wire's: {@code ./verbatim test} builds the reactor in the
 * order buffer, wire, fuzz, transport, ..., and fuzz's {@code WireFuzzTest} runs the 200,000-message campaign at
 * a fixed seed on every build. The wire properties that compare graphs ({@code GraphProperties}) live in this
 * module's tests for the same reason: they test wire through the one graph oracle.
 */
package dev.verbatim.fuzz;
