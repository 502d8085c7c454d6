package dev.verbatim.bench.rpc;

import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.wire.WireWriter;

import java.util.Locale;
import java.util.NoSuchElementException;

/**
 * The calls of {@code verbatim bench rpc} (J-RPC Table 2 and Figure 7, Jaguar Figure 8), and the
 * contract every contender's service keeps for each, so the harness can check every result:
 * {@code seq} is the call's sequence number (fresh for every call of a run), and a contender's
 * {@link RpcContender.Call#call(long)} returns what the service returned, as a {@code long}.
 *
 * <table>
 *   <caption>Cases</caption>
 *   <tr><th>case</th><th>the service method</th><th>arguments for call {@code seq}</th><th>returns</th></tr>
 *   <tr><td>{@code null}</td><td>{@code void nullCall()}</td><td>none</td><td>nothing (the call returns 0)</td></tr>
 *   <tr><td>{@code ints4}</td><td>{@code int ints4(int a, int b, int c, int d)}</td>
 *       <td>{@link #ints(long) a = (int) seq, b = a + 1, c = a + 2, d = a + 3}</td><td>{@code a + b + c + d}</td></tr>
 *   <tr><td>{@code remote-arg}</td><td>{@code int remoteArg(Token t)}, {@code Token} a remote interface</td>
 *       <td>the same remote object of the client, exported once</td><td>1 when a reference arrived (not called back)</td></tr>
 *   <tr><td>{@code bytes-8192}</td><td>{@code long bytes(byte[] a)}</td>
 *       <td>{@link #bytes() 8192 bytes}, {@code seq} in the first 8 (little-endian)</td>
 *       <td>the long in the first 8 bytes ({@code seq})</td></tr>
 *   <tr><td>{@code bytes-1MiB}, {@code bytes-64MiB}</td><td>{@code long bulk(byte[] a)} (the server declares
 *       a {@code MemorySegment}: the value whole in its memory)</td><td>{@link #bulk(int) that many bytes},
 *       {@code seq} in the first 8</td><td>{@code seq} (issue 18 §3: arguments larger than a receive area)</td></tr>
 *   <tr><td>{@code list-128}</td><td>{@code long list(ListNode head)}</td>
 *       <td>{@link #list() Graphs.list(128)} with {@code head.value = (int) seq}</td>
 *       <td>the sum of every node's value ({@link Graphs#touch(ListNode)}): the server reads the whole list</td></tr>
 *   <tr><td>{@code throughput-C}</td><td>{@code void nullCall()}</td><td>none: the null call, made by
 *       {@link #callers() C} callers at once on one proxy ({@link Throughput})</td><td>nothing (0)</td></tr>
 * </table>
 *
 * <p>The throughput cases ({@link #isThroughput()}) measure calls per second, not a round trip: their
 * contenders make the {@link #call() null call} from C threads, or keep C asynchronous calls in flight.
 *
 * <p>A contender that measures a case returns {@link #expected(long)}; the harness compares it after
 * each call, outside the timed region. The {@code floor} sends {@link #floorBytes()} bytes and gets a
 * word back (its calls return the expected value once the echo's sequence stamp checked out).
 */
public enum RpcCase {
    NULL("null", 8),
    INTS4("ints4", 16),
    REMOTE_ARG("remote-arg", 16),
    BYTES_8192("bytes-8192", 8192),
    BYTES_1MIB("bytes-1MiB", 1 << 20),
    BYTES_64MIB("bytes-64MiB", 64 << 20),
    LIST_128("list-128", -1),
    THROUGHPUT_1("throughput-1", 8),
    THROUGHPUT_16("throughput-16", 8),
    THROUGHPUT_256("throughput-256", 8);

    /** The argument size of {@link #BYTES_8192}. */
    public static final int BYTES = 8192;
    /** The list length of {@link #LIST_128} (Jaguar Figure 8). */
    public static final int LIST = 128;
    private static final long LIST_TAIL_SUM = Graphs.touch(Graphs.list(LIST)) - Graphs.list(LIST).value;

    private final String key;
    private final int floorBytes;

    RpcCase(String key, int floorBytes) {
        this.key = key;
        this.floorBytes = floorBytes;
    }

    /** The name in tables and JSON cases ({@code shm/ints4}). */
    public String key() {
        return key;
    }

    /**
     * Request bytes of the floor's ping-pong for this case (its reply is one word, 8 bytes): the
     * argument bytes (a null call: 8 bytes; four ints and a remote reference: 16); for the list, the
     * bytes of Verbatim's whole call message ({@link #listCallBytes()}), so the floor is what moving
     * that message costs with no marshalling, validation or walk.
     */
    public int floorBytes() {
        return this == LIST_128 ? ListCall.BYTES : floorBytes;
    }

    /**
     * The size of Verbatim's {@code CALL} message for {@link #LIST_128}: its 32-byte header, the
     * argument's 8-byte value header, and the list's wire message padded to 8 bytes (docs/rpc.md §1;
     * a record graph travels as one {@code WIRE} value). 2,104 bytes for 128 nodes: 16 per node (an
     * 8-byte object-table entry and the 8-byte node), as in J-RPC Table 4.
     */
    public static int listCallBytes() {
        return ListCall.BYTES;
    }

    /** Computed on first use: an enum's constants are built before its static fields. */
    private static final class ListCall {
        static final int BYTES = Math.toIntExact(32 + 8 + ((new WireWriter().sizeOf(list()) + 7) & ~7L));
    }

    /**
     * Whether this case moves a bulk argument (1 MiB, 64 MiB: issue 18 §3): a call takes milliseconds, so its
     * turns warm up and measure by time, with a few calls, not thousands ({@link RpcBench.Plan#step}).
     */
    public boolean isBulk() {
        return this == BYTES_1MIB || this == BYTES_64MIB;
    }

    /** Whether this case measures calls per second with {@link #callers()} callers at once (issue 18 §2). */
    public boolean isThroughput() {
        return callers() > 0;
    }

    /** The concurrent callers of a throughput case (1, 16, 256); 0 for the round-trip cases. */
    public int callers() {
        return switch (this) {
            case THROUGHPUT_1 -> 1;
            case THROUGHPUT_16 -> 16;
            case THROUGHPUT_256 -> 256;
            default -> 0;
        };
    }

    /** The call a contender prepares for this case: the throughput cases make the {@link #NULL} call, the others their own. */
    public RpcCase call() {
        return isThroughput() ? NULL : this;
    }

    /** The case of {@code key}. */
    public static RpcCase of(String key) {
        for (RpcCase c : values()) {
            if (c.key.equals(key)) {
                return c;
            }
        }
        throw new NoSuchElementException("no rpc case '" + key + "'");
    }

    /** What call {@code seq} of this case returns. */
    public long expected(long seq) {
        return switch (this) {
            case NULL, THROUGHPUT_1, THROUGHPUT_16, THROUGHPUT_256 -> 0;
            case INTS4 -> {
                int a = (int) seq;
                yield a + (a + 1) + (a + 2) + (a + 3);
            }
            case REMOTE_ARG -> 1;
            case BYTES_8192, BYTES_1MIB, BYTES_64MIB -> seq;
            case LIST_128 -> (int) seq + LIST_TAIL_SUM;
        };
    }

    /** Throws when {@code result} is not what call {@code seq} must return. */
    public void check(long seq, long result) {
        long e = expected(seq);
        if (result != e) {
            throw new IllegalStateException(String.format(Locale.ROOT, "%s call %d returned %d, expected %d",
                    key, seq, result, e));
        }
    }

    /** The four arguments of {@link #INTS4} call {@code seq}. */
    public static int[] ints(long seq) {
        int a = (int) seq;
        return new int[] {a, a + 1, a + 2, a + 3};
    }

    /** The {@link #INTS4} service: the sum of its arguments. */
    public static int ints4(int a, int b, int c, int d) {
        return a + b + c + d;
    }

    /** A fresh {@link #BYTES_8192} argument (a pattern); {@link #stamp} puts a call's {@code seq} in it. */
    public static byte[] bytes() {
        return Graphs.bytes(BYTES);
    }

    /** A fresh argument of a {@link #isBulk() bulk} case: {@code n} bytes of a pattern. */
    public static byte[] bulk(int n) {
        byte[] a = new byte[n];
        for (int i = 0; i < n; i++) {
            a[i] = (byte) (i * 31 + (i >>> 12));
        }
        return a;
    }

    /** Writes {@code seq} into the first 8 bytes of {@code a}, little-endian. */
    public static void stamp(byte[] a, long seq) {
        for (int i = 0; i < 8; i++) {
            a[i] = (byte) (seq >>> (8 * i));
        }
    }

    /** The {@link #BYTES_8192} service: the little-endian long in the first 8 bytes (-1 for an array of the wrong length). */
    public static long bytes(byte[] a) {
        if (a == null || a.length != BYTES) {
            return -1;
        }
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (a[i] & 0xff);
        }
        return v;
    }

    /** A fresh {@link #LIST_128} argument; a call sets {@code head.value = (int) seq}. */
    public static ListNode list() {
        return Graphs.list(LIST);
    }

    /** The {@link #LIST_128} service: the sum of the values. */
    public static long list(ListNode head) {
        return Graphs.touch(head);
    }
}
