/**
 * The typed zero-copy wire format (J-RPC §4, Jaguar's pre-serialized objects, jstreams): object graphs of
 * plain Java types written straight into memory in the layout they are read in, checked once in place, then
 * read where they lie. The bytes are specified in {@code docs/wire-format.md}; {@link
 * dev.verbatim.wire.MessageDescriptor} is its executable half.
 *
 * <h2>Entry points</h2>
 * <ul>
 *   <li>{@link dev.verbatim.wire.WireWriter}: marshals a root and everything it reaches into a
 *       {@link java.lang.foreign.MemorySegment} (a transport's claimed space, a mapped file), with no
 *       intermediate {@code byte[]}; {@code sizeOf} tells the size first.</li>
 *   <li>{@link dev.verbatim.wire.WireReader}: validates a message in one pass over its objects and returns a
 *       {@link dev.verbatim.wire.Message}, which reads its root as a zero-copy view of an accessor interface
 *       ({@link dev.verbatim.wire.Message#view}) or copies it to heap objects
 *       ({@link dev.verbatim.wire.Message#materialize}).</li>
 *   <li>{@link dev.verbatim.wire.Schema}: the structural fingerprint and canonical description of a type;
 *       {@link dev.verbatim.wire.TypeDictionary}: descriptions learned from a peer, so that another version of a
 *       type can be validated and read.</li>
 *   <li>{@link dev.verbatim.wire.ArrayView} (primitive arrays read in place), {@link dev.verbatim.wire.WireName}
 *       (the name of a sealed case on the wire), {@link dev.verbatim.wire.WireLimits} (what a reader accepts).</li>
 * </ul>
 * Graphs and logs stored in files are in {@link dev.verbatim.wire.file}.
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li><b>Schemas from Java types.</b> Records, classes, accessor interfaces, sealed hierarchies, enums,
 *       strings, boxes, arrays, {@code List}s, {@code Collection}s, {@code Set}s, {@code Map}s, {@code Optional}
 *       fields, and the JDK's value types ({@code java.time}'s instants, durations, dates and times, with offsets
 *       and zones, {@code UUID}, {@code BigInteger}, {@code BigDecimal}); no IDL. Views read maps and sets in place
 *       (lookups by key search the message), materialization keeps the sender's iteration order. A type that cannot be carried is a
 *       {@link dev.verbatim.wire.WireSchemaException} naming it, when it is first used.</li>
 *   <li><b>Fingerprints are structural.</b> The same in every JVM, computed from component names and types
 *       (SHA-256 of the canonical description); a record and an accessor interface of one structure share
 *       one, so a sender writes records and a receiver reads views.</li>
 *   <li><b>Nothing unchecked is trusted.</b> Validation costs one pass over the objects, never over array
 *       elements or string bytes; every offset, length, type id, reference, boolean and enum ordinal is
 *       checked with {@code long} arithmetic, and bad bytes are a {@link dev.verbatim.wire.WireFormatException}
 *       naming the offset and the rule broken. Nothing else escapes, nothing hangs, and nothing allocates in
 *       proportion to a length not yet checked against the message.</li>
 *   <li><b>Views read in place.</b> A view reads fields from the message's memory with no allocation per field
 *       read, re-checks every reference it follows, and never reads outside its message, even if that memory
 *       changes after validation. It is valid while the memory is.</li>
 *   <li><b>Views must be nameable.</b> A view class is generated in this module for each accessor interface;
 *       an interface that is not public, or that returns a type that is not accessible here, is refused when
 *       the view is bound, with a {@link dev.verbatim.wire.WireSchemaException} saying what to change.</li>
 *   <li><b>Code per type, once.</b> Writers, validators, views and materializers are generated once per type
 *       (hidden classes); no reflection on the per-message path.</li>
 *   <li><b>Evolution by name.</b> When fingerprints differ, the two structures are matched by field name once
 *       per (writer type, reader type) pair: added fields read as defaults, removed ones are skipped,
 *       incompatible ones fail at bind time naming the field.</li>
 * </ul>
 */
package dev.verbatim.wire;
