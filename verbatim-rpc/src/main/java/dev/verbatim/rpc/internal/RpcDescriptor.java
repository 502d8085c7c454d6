package dev.verbatim.rpc.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The RPC messages carried by a {@link dev.verbatim.transport.Connection}, one message per
 * delivery, all integers little-endian (docs/rpc.md §1). Every number that crosses the wire is a
 * named constant here (kinds, flags, value tags, reference sides); a reason travels as
 * {@link dev.verbatim.rpc.RemoteException.Reason#code()}, never as an ordinal.
 *
 * <pre>
 *  0      1       2        4          8          16                 24          32
 *  +------+-------+--------+----------+----------+------------------+-----------+-----------
 *  | kind | flags | count  | target   | call id  | method id        | chain     | values ...
 *  +------+-------+--------+----------+----------+------------------+-----------+-----------
 *  |&lt;---------- the head word (one u64) ---------->|
 *  |&lt;----------------- REPLY_HEADER (16) -------->|
 *  |&lt;------------------------------- HEADER (32) ------------------------------>|
 * </pre>
 *
 * The first 8 bytes are the <em>head word</em>: kind (u8), flags (u8), count (u16, the number of values),
 * target (u32), packed by {@link #head} and written as one u64. A {@code REPLY}, the commonest message,
 * has a short header: the head word (target 0) and the call id, then its value: a null call's reply is
 * 16 bytes, not 32. Every other kind has the full 32 bytes (method and chain 0 where unused).
 *
 * <p>The chain (in a {@code CALL}; 0 elsewhere) names the call chain the call belongs to: a top-level
 * call starts a new one, a call made while handling an incoming call carries that call's chain. A
 * receiver runs an incoming call on its thread that waits in the same chain (J-RPC's delegate
 * threads), and never on a thread waiting for an unrelated call.
 *
 * <p>A value, {@link #VALUE_HEADER} bytes then its payload padded to 8:
 *
 * <pre>
 *  0      4         8
 *  +------+---------+--------------------------+-- pad to 8 --+
 *  | tag  | length  | payload (length bytes)   |              |
 *  +------+---------+--------------------------+--------------+
 * </pre>
 *
 * {@code T_NULL}; {@code T_PRIM} (8 bytes); {@code T_WIRE} (a wire-format message: a graph by copy, or
 * for an accessor interface a view); {@code T_BYTES} (raw bytes: a {@code byte[]} or {@code MemorySegment}
 * argument, a {@code byte[]} result, a string of the protocol); {@code T_REGION} (length 4: a u32, the index
 * of a region written ahead of the message, a large array or segment; its padding is zero); {@code T_REMOTE} (u32
 * object id, u32 side: {@link #SIDE_SENDER} the sender's object, {@link #SIDE_RECEIVER_OBJECT} the
 * receiver's own object, {@link #SIDE_RECEIVER_EXPORT} the receiver's named export, by export id);
 * {@code T_SHARED} (a shared object's reference, node-wide: its payload is the object layer's, see
 * docs/objects.md); {@code T_STREAM} (length 8: u32 the value's index in its message, u32 zero; the bytes came
 * ahead in {@code PIECE}s, see {@link #PIECE}); {@code T_WIRE_REFS} (a wire message and the table of the shared
 * objects its reference slots name, see {@link ReferenceTable}).
 *
 * <ul>
 *   <li>{@code LOOKUP}: values name, interface name, then the method ids as one {@code BYTES}.</li>
 *   <li>{@code LOOKUP_OK}: target the export id; no values.</li>
 *   <li>{@code LOOKUP_FAIL}: flags a reason code; the message; for {@code INCOMPATIBLE}, the missing
 *       method ids as {@code BYTES}.</li>
 *   <li>{@code CALL}: target an export id (flags 0), an object id ({@link #TO_OBJECT}) or a shared
 *       object's node-wide id ({@link #TO_SHARED}); the method id; the arguments.</li>
 *   <li>{@code REPLY}: the call id; one value (none for void).</li>
 *   <li>{@code THROWN}: the call id; for each exception of the cause chain, its class name followed by
 *       its superclasses' (comma-separated) and its message.</li>
 *   <li>{@code FAIL}: the call id; flags a reason code; the message.</li>
 *   <li>{@code RELEASE}: target an object id of the receiver; the call id field holds the count.</li>
 *   <li>{@code CANCEL}: the call id of a call the sender no longer waits for (cancelled, timed out,
 *       interrupted); no values. Best effort: the receiver interrupts the call if it runs on a virtual
 *       thread, cancels its future if it is asynchronous, and otherwise lets it finish.</li>
 *   <li>{@code PIECE}: part of a streamed value; see {@link #PIECE}.</li>
 * </ul>
 *
 * <p>The accessors below are the header's flyweight: static, over the message's segment, allocating
 * nothing. The {@code check*} methods are what a receiver checks before it trusts a field.
 */
public final class RpcDescriptor {
    private RpcDescriptor() {}

    public static final int HEADER = 32;
    /** The header of a {@code REPLY}: the head word (target 0) and the call id. */
    public static final int REPLY_HEADER = 16;
    public static final int KIND = 0;
    public static final int FLAGS = 1;
    public static final int COUNT = 2;
    public static final int TARGET = 4;
    public static final int CALL_ID = 8;
    public static final int METHOD = 16;
    public static final int CHAIN = 24;

    // kinds (u8 at KIND)
    public static final int LOOKUP = 1;
    public static final int LOOKUP_OK = 2;
    public static final int LOOKUP_FAIL = 3;
    public static final int CALL = 4;
    public static final int REPLY = 5;
    public static final int THROWN = 6;
    public static final int FAIL = 7;
    public static final int RELEASE = 8;
    public static final int CANCEL = 9;
    /**
     * A piece of a streamed value (docs/rpc.md §7): an array or segment too large for one message, sent ahead
     * of the {@code CALL} or {@code REPLY} whose {@link #T_STREAM} value names it. Full header: flags
     * {@link #PIECE_OF_REPLY} or 0; count = the index of the value in its message; target 0; call id = the
     * call the value belongs to; the method field = the stream's total size in bytes (every piece the same);
     * the chain field = the offset of this piece in it. The bytes follow the header; pieces come in order.
     */
    public static final int PIECE = 10;
    /** Flag of a {@code PIECE}: it belongs to a {@code REPLY} to the receiver's call, not to a peer's {@code CALL}. */
    public static final int PIECE_OF_REPLY = 1;

    /** Flag of a {@code CALL}: the target is an object passed by reference, not a named export. */
    public static final int TO_OBJECT = 1;
    /**
     * Flag of a {@code CALL}: the target is a shared object of the receiving node's object layer
     * (docs/objects.md), by its node-wide object id; only a node with that layer accepts it.
     */
    public static final int TO_SHARED = 2;

    // value tags (u32 at a value's start)
    public static final int T_NULL = 0;
    public static final int T_PRIM = 1;
    public static final int T_WIRE = 2;
    public static final int T_BYTES = 3;
    public static final int T_REGION = 4;
    public static final int T_REMOTE = 5;
    /**
     * A shared object's reference (docs/objects.md §1): its owner base, object id, weight, the owner's
     * addresses and the object's interface names, as the object layer encodes them. Only a node with
     * that layer sends or accepts it.
     */
    public static final int T_SHARED = 6;
    /**
     * A value streamed ahead in {@link #PIECE}s (length 8: u32 its index in this message, u32 zero): an array or
     * segment larger than one message may be (docs/rpc.md §7).
     */
    public static final int T_STREAM = 7;
    /**
     * A value by copy holding objects passed by reference (docs/rpc.md §1, docs/objects.md §1): a wire message whose
     * reference slots index the table of {@code T_SHARED} payloads that follows it ({@link ReferenceTable}). Only a
     * node with the object layer sends or accepts it.
     */
    public static final int T_WIRE_REFS = 8;

    public static final int VALUE_HEADER = 8;

    /** Sides of a {@code REMOTE} value. */
    public static final int SIDE_SENDER = 0;
    public static final int SIDE_RECEIVER_OBJECT = 1;
    public static final int SIDE_RECEIVER_EXPORT = 2;

    /** Arrays and segments at least this large go as regions written ahead (J-RPC §4.4). */
    public static final int REGION_THRESHOLD = 8 * 1024;

    /** The length of a header of {@code kind}. */
    public static int headerOf(int kind) {
        return kind == REPLY ? REPLY_HEADER : HEADER;
    }

    /** The bytes a value of {@code payload} bytes takes: its header and the payload padded to 8. */
    public static long span(long payload) {
        return VALUE_HEADER + ((payload + 7) & ~7L);
    }

    // ------------------------------------------------------------------ the header's flyweight

    /** The head word of a message: kind, flags, count and target packed as they lie in its first 8 bytes. */
    public static long head(int kind, int flags, int count, int target) {
        return (kind & 0xFFL) | (flags & 0xFFL) << 8 | (count & 0xFFFFL) << 16 | (long) target << 32;
    }

    /** The kind of a head word. */
    public static int kindOf(long head) {
        return (int) head & 0xFF;
    }

    /** Writes a header ({@link #headerOf} its kind bytes: a reply's is short). */
    public static void putHeader(MemorySegment s, long head, long callId, long method, long chain) {
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, KIND, head);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, CALL_ID, callId);
        if (kindOf(head) != REPLY) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, METHOD, method);
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, CHAIN, chain);
        }
    }

    /** The first bytes of {@code m} (up to 16) in hex, for the reason a malformed message gives. */
    static String startOf(MemorySegment m) {
        StringBuilder b = new StringBuilder();
        for (long i = 0, n = Math.min(16, m.byteSize()); i < n; i++) {
            b.append(i == 0 ? "" : " ").append(String.format("%02x", m.get(ValueLayout.JAVA_BYTE, i) & 0xFF));
        }
        return b.toString();
    }

    public static int kind(MemorySegment m) {
        return m.get(ValueLayout.JAVA_BYTE, KIND) & 0xFF;
    }

    public static int flags(MemorySegment m) {
        return m.get(ValueLayout.JAVA_BYTE, FLAGS);
    }

    /** The number of values (u16). */
    public static int count(MemorySegment m) {
        return m.get(ValueLayout.JAVA_SHORT_UNALIGNED, COUNT) & 0xFFFF;
    }

    public static int target(MemorySegment m) {
        return m.get(ValueLayout.JAVA_INT_UNALIGNED, TARGET);
    }

    public static long callId(MemorySegment m) {
        return m.get(ValueLayout.JAVA_LONG_UNALIGNED, CALL_ID);
    }

    /** The method id of a {@code CALL} (full header only). */
    public static long method(MemorySegment m) {
        return m.get(ValueLayout.JAVA_LONG_UNALIGNED, METHOD);
    }

    /** The chain of a {@code CALL} (full header only). */
    public static long chain(MemorySegment m) {
        return m.get(ValueLayout.JAVA_LONG_UNALIGNED, CHAIN);
    }

    /** The tag of the value at {@code at}. */
    public static int tag(MemorySegment m, long at) {
        return m.get(ValueLayout.JAVA_INT_UNALIGNED, at);
    }

    /** The payload length of the value at {@code at} (u32). */
    public static long length(MemorySegment m, long at) {
        return m.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4) & 0xFFFF_FFFFL;
    }

    /**
     * The 8 bytes of a {@code T_PRIM} value for a box: an integer sign-extended, a float's or double's raw
     * bits, a boolean as 1 or 0.
     *
     * @throws IllegalArgumentException if {@code v} is not a box of a primitive
     */
    public static long bits(Object v) {
        return switch (v) {
            case Integer i -> i;
            case Long l -> l;
            case Boolean b -> b ? 1 : 0;
            case Byte b -> b;
            case Short sh -> sh;
            case Character c -> c;
            case Float f -> Float.floatToRawIntBits(f);
            case Double d -> Double.doubleToRawLongBits(d);
            case null, default -> throw new IllegalArgumentException("not a primitive: " + v);
        };
    }

    /** Writes a value's header. */
    public static void putValueHeader(MemorySegment s, long at, int tag, long length) {
        s.set(ValueLayout.JAVA_INT_UNALIGNED, at, tag);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, (int) length);
    }

    // ------------------------------------------------------------------ checks

    /**
     * The kind of a message, or -1 if it is shorter than its kind's header (malformed: the connection
     * closes). An unknown kind is returned as is; the message switch refuses it.
     */
    public static int checkHeader(MemorySegment m) {
        if (m.byteSize() < REPLY_HEADER) {
            return -1;
        }
        int kind = kind(m);
        return m.byteSize() < headerOf(kind) ? -1 : kind;
    }

    /**
     * Where the value at {@code at} ends, after checking that it lies within the message.
     *
     * @throws IllegalArgumentException if it overruns the message
     */
    public static long checkValue(MemorySegment m, long at) {
        long end = at + span(length(m, at));
        if (end > m.byteSize()) {
            throw new IllegalArgumentException("a value overruns the message");
        }
        return end;
    }
}
