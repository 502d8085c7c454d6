package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;

import static dev.verbatim.wire.MessageDescriptor.*;

/**
 * Validates runs of a struct shape that no Java type of this process has (a type only learned from a peer's
 * descriptions) by reading the shape's tables, as {@link StructValidator} requires: code is generated only for the
 * application's own types, so a peer cannot make the process generate a class per type it sends (some 3 KiB of
 * metaspace each, up to the limit on learned types). Same rules, same exceptions, in the same order as the
 * generated validators.
 *
 * <p>Thread-safe: immutable.
 */
final class GenericStructValidator extends StructValidator {
    private final Shape shape;

    /** {@code settled}: for a shape of the application's own types whose code could not be generated. */
    GenericStructValidator(Shape shape, boolean settled) {
        super(settled);
        this.shape = shape;
    }

    @Override
    int validateRun(MemorySegment m, long[] entries, Shape[] ids, int i, long pos, long tail, long tidBits) {
        Shape s = shape;
        int n = entries.length;
        long step = align8(s.objectSize);
        int[] refOffsets = s.refOffsets;
        Shape[] refShapes = s.refShapes;
        int back = 0;
        do {
            if (pos + s.objectSize > tail) throw WireReader.overrun(pos, s);
            for (int j = 0; j < refOffsets.length; j++) {
                if (!WireReader.checkRef(m, pos + refOffsets[j], refShapes[j], entries, ids, i)) back = BACK;
            }
            for (int b : s.boolOffsets) WireReader.checkBoolean(m, pos + b);
            for (int j = 0; j < s.enumOffsets.length; j++) WireReader.checkOrdinal(m, pos + s.enumOffsets[j], s.enumCounts[j]);
            if (ValueTypes.isValue(s)) ValueTypes.check(s, m, pos, entries, tail);
            pos += step;
            i++;
        } while (i < n && entries[i] == (tidBits | pos));
        return i | back;
    }
}
