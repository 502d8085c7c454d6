package dev.verbatim.wire;

import dev.verbatim.wire.internal.WireInternals;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

import static dev.verbatim.wire.MessageDescriptor.*;

/**
 * What the stored-file package needs of this package's internals ({@link WireInternals}): installed by
 * {@link Message}'s static initialiser.
 *
 * <p>Thread-safe: stateless.
 */
final class FileSupport extends WireInternals {
    FileSupport() {}

    @Override
    public List<String> newDescriptions(MemorySegment seg, long at, long length, LongPredicate described) {
        int types = seg.get(I16, at + TYPE_COUNT_OFFSET) & 0xFFFF;
        if (types == 0) return List.of();
        int objects = seg.get(I32, at + OBJECT_COUNT_OFFSET);
        long tail = length - (long) TYPE_ENTRY_LENGTH * types - (long) OBJECT_ENTRY_LENGTH * objects;
        List<Shape> roots = new ArrayList<>(types);
        for (int k = 0; k < types; k++) {
            long fp = seg.get(I64, at + tail + 8L * k);
            if (described.test(fp)) continue;
            Shape s = Schema.shapeByFingerprint(fp);
            if (s == null) throw new IllegalStateException("the writer used a type it does not know: " + Fingerprints.hex(fp));
            roots.add(s);
        }
        return roots.isEmpty() ? List.of() : TypeDictionary.describe(roots, described);
    }

    @Override
    public String canonicalDescription(long fingerprint) {
        Shape s = Schema.shapeByFingerprint(fingerprint);
        return s == null ? null : s.canonical;
    }

    @Override
    public void forEachObject(Message m, ObjectSink sink) {
        for (int i = 0; i < m.objects; i++) {
            long e = m.entries[i];
            long start = Integer.toUnsignedLong(entryOffset(e));
            long stop = i + 1 < m.objects ? Integer.toUnsignedLong(entryOffset(m.entries[i + 1])) : m.tail;
            sink.object(WireReader.shapeOf(entryType(e), m.ids).fingerprint, stop - start);
        }
    }
}
