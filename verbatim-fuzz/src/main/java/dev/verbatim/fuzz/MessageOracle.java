package dev.verbatim.fuzz;

import dev.verbatim.fuzz.FuzzTypes.Holder;
import dev.verbatim.fuzz.FuzzTypes.HolderOldV;
import dev.verbatim.fuzz.FuzzTypes.HolderV;
import dev.verbatim.fuzz.FuzzTypes.ReadAs;
import dev.verbatim.wire.Message;
import dev.verbatim.wire.MessageDescriptor;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireLimits;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireSchemaException;
import dev.verbatim.wire.WireWriter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * The oracle of one case: what the validator, the views and the materializer must do with one message of bytes,
 * valid or not (DESIGN §3 and §7). For each message, copied to native memory as a transport hands it over (or to
 * the heap, {@code heap}):
 *
 * <ul>
 *   <li>{@link WireReader#validate} throws nothing but {@link WireFormatException}, which names a rule and an
 *       offset inside the message; it allocates at most {@link #VALIDATE_ALLOCATION_BUDGET} bytes beyond its copy
 *       of the object table ({@link #tableCopyBytes}: never more than the message's own length), so nothing in
 *       proportion to a count or length it has not checked;</li>
 *   <li>an accepted message respects the reader's {@link #LIMITS}, and {@code Message.byteSize()} is its length;</li>
 *   <li>an accepted message whose root a {@link FuzzTypes} type names is read in full and agrees with itself, as
 *       {@link GraphOracle} says: its views, a second view type of the root if it has one, its materialized copy,
 *       and that copy written again (up to 64 KiB) and read again are all the same graph; a {@code Holder} also
 *       reads as its older version, with the added field 0. The materializer may refuse it with a
 *       {@link WireSchemaException} only when the views hold a cycle through records ({@link RecordCycles});</li>
 *   <li>after its memory is changed in place (a peer scribbling on shared memory), reading it again through
 *       views and the materializer throws nothing but {@code WireFormatException} or {@code WireSchemaException}
 *       (the change can make a cycle through records).</li>
 * </ul>
 *
 * <p>A broken property throws {@link Broken}; an exception escaping the code under test escapes as it is.
 * Not thread-safe: one per worker thread (it keeps a writer, an allocation counter and a native slab).
 */
final class MessageOracle {
    /** The reader's limits: tight, so that the limits are exercised and memory stays bounded. */
    static final WireLimits LIMITS = new WireLimits(1 << 20, 50_000, 64, 1 << 16);
    /**
     * Most bytes one {@code validate} may allocate beyond its copy of the object table ({@link #tableCopyBytes}),
     * whatever the message claims.
     */
    static final long VALIDATE_ALLOCATION_BUDGET = 64 << 10;
    /** Messages up to this length are written again from their materialized copy and read again. */
    static final int REWRITE_MAX_BYTES = 64 << 10;
    private static final long SLAB = 2 << 20;

    /** A property the campaign checks was broken (as opposed to an exception escaping the code under test). */
    static final class Broken extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final String detail;

        Broken(String message, String detail) {
            super(message, null, false, false);
            this.detail = detail;
        }
    }

    /**
     * What one case came to. ACCEPTED_UNMATERIALIZABLE: valid, but the reader's types cannot hold it, as the format allows: map keys (set
     * elements) distinct on the wire that are equal by {@code equals}, or a well-formed zone id this JVM does not know.
     */
    enum Outcome { REJECTED, ACCEPTED_READ, ACCEPTED_NULL_ROOT, ACCEPTED_UNREADABLE_ROOT, ACCEPTED_RECORD_CYCLE, ACCEPTED_UNMATERIALIZABLE }

    final WireReader reader;
    private final WireWriter writer = new WireWriter();
    private final LongSupplier allocated = allocationCounter();
    private final Campaign.Stats stats;
    /** Read messages from heap segments (byte[]) instead of native memory. */
    private final boolean heap;
    private MemorySegment slab;
    /** The rule of the last rejected message. */
    String lastRule;
    /** The message and its reader types of the last accepted case, for {@link #scribbled}. */
    private Message lastMessage;
    private ReadAs lastHow;

    MessageOracle(WireReader reader, Campaign.Stats stats) {
        this(reader, stats, false);
    }

    MessageOracle(WireReader reader, Campaign.Stats stats, boolean heap) {
        writer.references(FuzzTypes.PARTIES); // a desk's members, written again from a materialized copy
        this.reader = reader;
        this.stats = stats;
        this.heap = heap;
    }

    /**
     * What {@code validate}'s copy of the object table takes for this message: 8 bytes per object and an array
     * header, when the object count in its header fits its length (validate refuses it before copying otherwise).
     * Never more than the message's own length plus the header: nothing in proportion to an unchecked count.
     */
    static long tableCopyBytes(byte[] message) {
        if (message.length < MessageDescriptor.HEADER_LENGTH) return 0;
        long objects = Integer.toUnsignedLong(MessageLayout.getInt(message, MessageDescriptor.OBJECT_COUNT_OFFSET));
        return 8 * objects <= message.length ? 16 + 8 * objects : 0;
    }

    /** A native segment of exactly {@code n} bytes at {@code at} in the slab (or of its own, if larger). */
    private MemorySegment nativeSegment(long at, long n) {
        if (slab == null) slab = Arena.ofAuto().allocate(2 * SLAB, 8);
        return n <= SLAB ? slab.asSlice(at, n) : Arena.ofAuto().allocate(n, 8);
    }

    Outcome check(byte[] bytes) {
        return check(bytes, 0);
    }

    /** Checks one message; if it is valid and {@code scribble} is not 0, also reads it after changing it in place. */
    Outcome check(byte[] bytes, long scribble) {
        MemorySegment seg;
        if (heap) {
            seg = MemorySegment.ofArray(bytes.clone());
        } else {
            seg = nativeSegment(0, bytes.length);
            MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
        }
        Outcome o = check(seg, bytes);
        if (o != Outcome.REJECTED && scribble != 0) scribbled(seg, scribble);
        return o;
    }

    /**
     * DESIGN §7: a validated message stays safe to read when its memory changes afterwards (a shared-memory peer
     * scribbling). Reading it again through views and the materializer may fail only with a WireFormatException
     * (or the materializer's WireSchemaException for a cycle through records the change made); anything else
     * escaping, a read outside the message included, is a failure.
     */
    private void scribbled(MemorySegment seg, long seed) {
        if (lastHow == null) return;
        SplittableRandom r = new SplittableRandom(seed);
        byte[] now = seg.toArray(ValueLayout.JAVA_BYTE);
        for (int i = 1 + r.nextInt(3); i > 0; i--) Mutator.scribble(now, r);
        MemorySegment.copy(now, 0, seg, ValueLayout.JAVA_BYTE, 0, now.length);
        stats.scribbled.increment();
        try {
            GraphOracle.read(lastMessage.view(lastHow.view()));
            GraphOracle.read(lastMessage.materialize(lastHow.type()));
        } catch (WireFormatException | WireSchemaException e) {
            stats.scribbledRefused.increment();
        } catch (GraphOracle.GraphMismatch b) {
            throw new Broken("after the memory of a validated message changed: " + b.getMessage(), null);
        } catch (RuntimeException | Error e) {
            throw new Broken("after the memory of a validated message changed, escaped: " + e, Campaign.stackTrace(e));
        }
    }

    private Outcome check(MemorySegment seg, byte[] bytes) {
        lastMessage = null;
        lastHow = null;
        Message m;
        long before = allocated == null ? 0 : allocated.getAsLong();
        try {
            m = reader.validate(seg, FuzzTypes.PARTIES);
        } catch (WireFormatException e) {
            checkValidateAllocation(before, seg, bytes);
            if (e.rule() == null || e.rule().isEmpty()) throw new Broken("a WireFormatException without a rule", e.toString());
            if (e.offset() < -1 || e.offset() > bytes.length) {
                throw new Broken("a WireFormatException names an offset outside the message", e + " (message of " + bytes.length + " bytes)");
            }
            lastRule = e.rule();
            return Outcome.REJECTED;
        }
        checkValidateAllocation(before, seg, bytes);
        int types = MessageLayout.typeCount(bytes);
        if (bytes.length > LIMITS.maxMessageBytes() || m.objectCount() > LIMITS.maxObjects() || types > LIMITS.maxTypes()) {
            throw new Broken("an accepted message exceeds the limits", bytes.length + " bytes, " + m.objectCount() + " objects, " + types + " types");
        }
        if (m.byteSize() != bytes.length) throw new Broken("Message.byteSize() differs from the message length", m.byteSize() + " vs " + bytes.length);
        return read(m, bytes.length);
    }

    /** validate may allocate a small constant and its table copy, never in proportion to what the message claims. */
    private void checkValidateAllocation(long before, MemorySegment seg, byte[] bytes) {
        if (allocated == null) return;
        long used = allocated.getAsLong() - before;
        if (used > 8192) {
            // The first run of a code path can allocate for class loading and call-site linking: measure again.
            long again = allocated.getAsLong();
            try {
                reader.validate(seg, FuzzTypes.PARTIES);
            } catch (WireFormatException expected) {
                // measured below
            }
            used = Math.min(used, allocated.getAsLong() - again);
        }
        used -= Math.min(used, tableCopyBytes(bytes));
        stats.maxValidateAllocation.accumulateAndGet(used, Math::max);
        if (used > VALIDATE_ALLOCATION_BUDGET) {
            throw new Broken("validate allocated " + used + " bytes beyond its copy of the object table (budget "
                    + VALIDATE_ALLOCATION_BUDGET + ")", "message of " + bytes.length + " bytes");
        }
    }

    private Outcome read(Message m, int length) {
        if (m.objectCount() == 0) {
            if (m.view(HolderV.class) != null || m.materialize(Holder.class) != null) throw new Broken("a null root read as non-null", null);
            return Outcome.ACCEPTED_NULL_ROOT;
        }
        ReadAs how = FuzzTypes.READERS.get(m.rootFingerprint());
        if (how == null) return Outcome.ACCEPTED_UNREADABLE_ROOT; // e.g. a List as the root: no Java type names it
        lastMessage = m;
        lastHow = how;
        Object views = m.view(how.view());
        if (how.type() == Holder.class) { // read by an other version of the type, field by field
            HolderOldV old = m.view(HolderOldV.class);
            GraphOracle.read(old);
            if (old.added() != 0) throw new Broken("a field the writer does not have did not read as 0", Integer.toString(old.added()));
        }
        if (how.view2() != null) {
            try {
                GraphOracle.assertSameViews(views, m.view(how.view2()));
            } catch (GraphOracle.GraphMismatch e) {
                throw new Broken("two views of the root disagree (" + how.view().getSimpleName() + ", " + how.view2().getSimpleName() + ")",
                        e.getMessage());
            }
        }
        RecordCycles cycles = new RecordCycles();
        Object copy;
        try {
            copy = m.materialize(how.type());
        } catch (WireFormatException e) {
            if (e.rule().startsWith("map keys or set elements not unique")) return Outcome.ACCEPTED_UNMATERIALIZABLE;
            throw e; // the message is not being changed: nothing else may fail after validation
        } catch (WireSchemaException e) {
            if (e.getMessage().contains("is not known to this JVM's time-zone rules")) return Outcome.ACCEPTED_UNMATERIALIZABLE;
            GraphOracle.read(views, cycles);
            if (cycles.found()) return Outcome.ACCEPTED_RECORD_CYCLE;
            throw e; // refused without a reason a valid message can give
        }
        try {
            GraphOracle.assertViewsRead(copy, views, cycles);
        } catch (GraphOracle.GraphMismatch e) {
            throw new Broken("the views and the materialized graph disagree", e.getMessage());
        }
        if (cycles.found()) throw new Broken("the materializer built a graph with a cycle through records", null);
        if (length <= REWRITE_MAX_BYTES) { // written again, it reads the same
            long size = writer.sizeOf(copy);
            MemorySegment again = heap ? MemorySegment.ofArray(new byte[(int) size]) : nativeSegment(SLAB, size);
            if (writer.write(copy, again, 0) != size) throw new Broken("sizeOf differs from what write wrote", size + " bytes");
            try {
                GraphOracle.assertSameGraph(copy, reader.validate(again, FuzzTypes.PARTIES).materialize(how.type()));
            } catch (GraphOracle.GraphMismatch e) {
                throw new Broken("the materialized graph, written and read again, differs", e.getMessage());
            }
        }
        return Outcome.ACCEPTED_READ;
    }

    /** The current thread's allocated bytes (HotSpot's com.sun.management), or null where unsupported. */
    static LongSupplier allocationCounter() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean mx
                && mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled()) {
            return mx::getCurrentThreadAllocatedBytes;
        }
        return null;
    }

    /** A copy of {@code bytes} in native memory (freed by the GC), as a transport would hand a received message over. */
    static MemorySegment nativeCopy(byte[] bytes) {
        MemorySegment seg = Arena.ofAuto().allocate(Math.max(1, bytes.length), 8).asSlice(0, bytes.length);
        MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
        return seg;
    }

    /** Bytes one {@code validate} of {@code message} allocates (second run, so linking is not counted), or -1. */
    static long validateAllocation(byte[] message) {
        LongSupplier a = allocationCounter();
        if (a == null) return -1;
        WireReader reader = new WireReader(LIMITS);
        MemorySegment seg = nativeCopy(message);
        long used = 0;
        for (int run = 0; run < 2; run++) {
            long before = a.getAsLong();
            try {
                reader.validate(seg, FuzzTypes.PARTIES);
            } catch (WireFormatException e) {
                // rejected: that is fine, the allocation is what is measured
            }
            used = a.getAsLong() - before;
        }
        return used;
    }
}
