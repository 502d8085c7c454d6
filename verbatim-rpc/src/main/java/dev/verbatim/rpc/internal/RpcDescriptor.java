package dev.verbatim.rpc.internal;

/**
 * The RPC messages carried by a {@link dev.verbatim.transport.Connection}, one message per
 * delivery, little-endian:
 *
 * <pre>
 *  0      1       2        4          8          16                 24          32
 *  | kind | flags | count  | target   | call id  | method id / arg  | chain     | values ...
 * </pre>
 *
 * A {@code REPLY}, the commonest message, has a short header: its first 16 bytes (target 0), then its
 * value: a null call's reply is 16 bytes, not 32.
 *
 * The chain (in a {@code CALL}; 0 elsewhere) names the call chain the call belongs to: a top-level
 * call starts a new one, a call made while handling an incoming call carries that call's chain. A
 * receiver runs an incoming call on its thread that waits in the same chain (J-RPC's delegate
 * threads), and never on a thread waiting for an unrelated call.
 *
 * A value is {@code [u32 tag][u32 length][payload, padded to 8]}: {@code NULL}; {@code PRIM} (8
 * bytes); {@code WIRE} (a wire-format message: a graph by copy, or for an accessor interface a
 * view); {@code BYTES} (raw bytes: a {@code byte[]} or {@code MemorySegment} argument, a {@code byte[]}
 * result, a string of the protocol);
 * {@code REGION} (u32: the index of a region written ahead of the message, a large array or
 * segment); {@code REMOTE} (u32 object id, u32 side: 0 the sender's object, 1 the receiver's own object, 2 the
 * receiver's named export, by export id).
 *
 * <ul>
 *   <li>{@code LOOKUP}: values name, interface name, then the method ids as one {@code BYTES}.</li>
 *   <li>{@code LOOKUP_OK}: target the export id; no values.</li>
 *   <li>{@code LOOKUP_FAIL}: flags a {@link dev.verbatim.rpc.RemoteException.Reason} ordinal; the message;
 *       for {@code INCOMPATIBLE}, the missing method ids as {@code BYTES}.</li>
 *   <li>{@code CALL}: target an export id (flags 0) or an object id ({@link #TO_OBJECT}); the method id;
 *       the arguments.</li>
 *   <li>{@code REPLY}: the call id; one value (none for void).</li>
 *   <li>{@code THROWN}: the call id; for each exception of the cause chain, its class name followed by
 *       its superclasses' (comma-separated) and its message.</li>
 *   <li>{@code FAIL}: the call id; flags a reason ordinal; the message.</li>
 *   <li>{@code RELEASE}: target an object id of the receiver; the call id field holds the count.</li>
 *   <li>{@code CANCEL}: the call id of a call the sender no longer waits for (cancelled, timed out,
 *       interrupted); no values. Best effort: the receiver interrupts the call if it runs on a virtual
 *       thread, cancels its future if it is asynchronous, and otherwise lets it finish.</li>
 * </ul>
 */
public final class RpcDescriptor {
    private RpcDescriptor() {}

    public static final int HEADER = 32;
    /** The header of a {@code REPLY}: kind, flags, count, 4 bytes of zero, call id. */
    public static final int REPLY_HEADER = 16;
    public static final int KIND = 0;
    public static final int FLAGS = 1;
    public static final int COUNT = 2;
    public static final int TARGET = 4;
    public static final int CALL_ID = 8;
    public static final int METHOD = 16;
    public static final int CHAIN = 24;

    public static final int LOOKUP = 1;
    public static final int LOOKUP_OK = 2;
    public static final int LOOKUP_FAIL = 3;
    public static final int CALL = 4;
    public static final int REPLY = 5;
    public static final int THROWN = 6;
    public static final int FAIL = 7;
    public static final int RELEASE = 8;
    public static final int CANCEL = 9;

    public static final int TO_OBJECT = 1;

    public static final int T_NULL = 0;
    public static final int T_PRIM = 1;
    public static final int T_WIRE = 2;
    public static final int T_BYTES = 3;
    public static final int T_REGION = 4;
    public static final int T_REMOTE = 5;

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

    public static long span(long payload) {
        return VALUE_HEADER + ((payload + 7) & ~7L);
    }
}
