package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;

/**
 * Validates runs of one struct shape's objects (the rules of {@link WireReader} for a struct: the object fits
 * before the tables, its booleans and enum ordinals are in range, its references are null or name objects of
 * the declared type). Subclasses are generated once per shape by {@link StructValidatorGenerator}: the field
 * offsets, the object size and the declared types are constants of the code, and each shape's loop is
 * compiled on its own, so one message type's profile cannot slow down another's (a generic loop over a
 * shape's offsets served every type and was compiled for whichever it saw first).
 *
 * <p>Thread-safe: stateless.
 */
abstract class StructValidator {
    /**
     * Checks object {@code i} at {@code pos} (its entry, {@code tidBits | pos}, was checked by the caller) and the
     * objects after it while their entries are {@code tidBits | } the next 8-aligned position and they fit before
     * {@code tail}: a run of this shape. (An object that does not fit ends the run; called for it, this throws.)
     *
     * @param entries the validated copy of the object table (reference targets' types are read there)
     * @param ids shapes by type id, for references whose target is not the declared shape itself
     * @return the index after the run (its objects end at {@code pos + (index - i) * align8(objectSize)}), with bit 31
     *     ({@link #BACK}) set if a reference of the run names the object holding it or an earlier one
     *     ({@link Message#forwardOnly})
     * @throws WireFormatException if a rule is broken
     */
    abstract int validateRun(MemorySegment m, long[] entries, Shape[] ids, int i, long pos, long tail, long tidBits);

    /** Or-ed into {@link #validateRun}'s result when a reference of the run points back. */
    static final int BACK = Integer.MIN_VALUE;

    /**
     * Whether this is the shape's validator for good: a generated one, or the generic one of a shape whose code could
     * not be generated (false: the generic one of a shape only learned from a peer, replaced once a Java type has it).
     */
    final boolean settled;

    /** A generated validator. */
    StructValidator() { this(true); }

    StructValidator(boolean settled) {
        this.settled = settled;
    }
}
